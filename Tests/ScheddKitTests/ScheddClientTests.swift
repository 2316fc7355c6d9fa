import Foundation
import ScheddClient
import ScheddTestKit
import XCTest

/// ScheddClient and ScheddTestKit against the real daemon on a real private bus (`schedd testbed`).
final class ScheddClientTests: XCTestCase {
    private func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    func testPushAdvance_shownAndHistoryAsTypedValues() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-12-24T08:00:00Z", zone: "Europe/Berlin")
        defer { testbed.stop() }
        let outcomes = try await testbed.push(.local(LocalNotification(
            id: "run_1:dinner", title: "Dinner", trigger: .at("2026-12-24T18:00"), body: "Table for 4",
            data: ["table": .number(4)], urgency: .critical)))
        XCTAssertEqual(outcomes.map(\.status), [.scheduled])
        XCTAssertEqual(outcomes.first?.next, date("2026-12-24T17:00:00Z"))
        try await testbed.advance("8h")
        XCTAssertEqual(try testbed.shown(), [])
        let now = try await testbed.advance(by: .seconds(3600))
        XCTAssertEqual(now, date("2026-12-24T17:00:00Z"))
        let shown = try testbed.shown()
        XCTAssertEqual(shown.map(\.id), ["run_1:dinner"])
        XCTAssertEqual(shown.first?.body, "Table for 4")
        XCTAssertEqual(shown.first?.urgency, "critical")
        let history = try await testbed.history()
        XCTAssertEqual(history.map(\.event), ["fired"])
        XCTAssertEqual(history.first?.data, .object(["table": .number(4)]))
        XCTAssertEqual(history.first?.late, 0)
    }

    func testSleep_foldsLateOnesPerApp_neverAnAlarm_andStatusShowsIt() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        for i in 0..<5 {
            _ = try await testbed.push(.local(LocalNotification(id: "r:\(i)", title: "Reminder \(i)",
                                                             trigger: .at("2026-01-01T00:1\(i):00Z"))))
        }
        let alarm = try await testbed.push(.local(LocalNotification(id: "wake:1", title: "Get up",
                                                                     trigger: .at("2026-01-01T00:10:00Z"), alarm: true)))
        guard case .object(let status) = try await testbed.client.status(), case .object(let wake)? = status["wake"] else {
            return XCTFail("status is an object with a wake object")
        }
        XCTAssertEqual(alarm.first?.wake.map(JSONValue.string), wake["capability"], "an alarm implies wake")
        let now = try await testbed.sleep("30min")
        XCTAssertEqual(now, date("2026-01-01T00:30:00Z"))
        let shown = try testbed.shown()
        XCTAssertEqual(Set(shown.map(\.id)), ["schedd:folded", "wake:1"], "one summary for the five, the alarm alone")
        XCTAssertEqual(shown.first { $0.id == "schedd:folded" }?.title, "5 reminders while this computer was asleep")
        let fired = try await testbed.history().filter { $0.event == "fired" }
        XCTAssertEqual(fired.filter(\.folded).map(\.id).sorted(), (0..<5).map { "r:\($0)" })
        XCTAssertEqual(fired.first { $0.id == "wake:1" }?.folded, false)
        guard case .object(let after) = try await testbed.client.status(), case .object(let sleep)? = after["sleep"] else {
            return XCTFail("status has a sleep object")
        }
        XCTAssertEqual(sleep["lastSleep"], .string("2026-01-01T00:00:00Z"))
        XCTAssertEqual(sleep["lastResume"], .string("2026-01-01T00:30:00Z"))
    }

    /// The daemon's error reply carries member, rule and position as data (`ScheddError.detail`): a JSON
    /// syntax error's byte and reason, and each rejected entry of a batch (a push's member and rule:
    /// `testTypedErrorsMirrorTheDBusErrors`).
    func testErrorsCarryMemberRuleAndPositionAsData() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        do {
            _ = try await testbed.client.push(json: #"{"bk":"#)
            XCTFail("a push that is no JSON is rejected")
        } catch {
            XCTAssertEqual(error.detail, SchedulerErrorDetail(member: "push", rule: "invalid JSON at byte 6: unexpected end of input",
                                                              position: 6, syntax: "unexpected end of input"))
        }
        let answers = try await testbed.client.pushBatch([Push.local(LocalNotification(id: "", title: "bad", trigger: .at("2026-01-02T00:00:00Z")))])
        guard case .failure(let rejected)? = answers.first else { return XCTFail("the push is rejected") }
        XCTAssertEqual(rejected.detail?.member, "bk.local.id")
        XCTAssertEqual(rejected.message, (rejected.detail?.member ?? "?") + ": " + (rejected.detail?.rule ?? "?"))
    }

    func testTypedErrorsMirrorTheDBusErrors() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        do {
            _ = try await testbed.client.push(json: #"{"bk":{"local":{"id":"x","at":"2026-01-02T00:00"}}}"#)
            XCTFail("a push without a title is rejected")
        } catch {
            XCTAssertEqual(error.code, .invalidPush)
            XCTAssertEqual(error.dbusName, "org.schedd.Scheduler1.Error.InvalidPush")
            XCTAssertTrue(error.message.contains("bk.local.title"), error.message)
            XCTAssertEqual(error.detail, SchedulerErrorDetail(member: "bk.local.title", rule: "required"))
            XCTAssertEqual(error.message, "bk.local.title: required")
        }
        do {
            try await testbed.zone("Mars/Olympus")
            XCTFail("an unknown zone is rejected")
        } catch {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("Mars/Olympus"), error.message)
        }
        let count = try await testbed.pendingCount()
        XCTAssertEqual(count, 0)
    }

    func testUnreachableDaemon_isATypedError() async throws {
        do {
            _ = try await ScheddClient.connect(to: .address("unix:path=/nonexistent/schedd-test-bus"))
            XCTFail("no bus there")
        } catch {
            XCTAssertEqual(error.code, .unreachable)
        }
    }

    func testSignals_areAnAsyncSequenceOfTypedValues() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        let signals = testbed.client.signals()
        try await testbed.schedule(id: "s:1", title: "Signal me", at: "2026-01-01T00:10:00Z")
        try await testbed.schedule(id: "s:2", title: "Cancel me", at: "2026-01-01T00:20:00Z")
        _ = try await testbed.client.cancel(id: "s:2")
        try await testbed.advance("1h")
        var seen: [ScheddSignal] = []
        for await signal in signals {
            seen.append(signal)
            if seen.count == 2 { break }
        }
        XCTAssertEqual(seen.first, .cancelled(id: "s:2", reason: "cli"))
        guard case .shown(let shown)? = seen.last else { return XCTFail("expected NotificationShown: \(seen)") }
        XCTAssertEqual(shown.id, "s:1")
        XCTAssertEqual(shown.title, "Signal me")
    }

    func testOrder_dueInstantThenPushOrder_andRunUntilIdleWithItsLimit() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        for id in ["zeta", "alpha", "mid"] { try await testbed.schedule(id: id, title: id, at: "2026-01-01T12:00:00Z") }
        try await testbed.schedule(id: "earlier", title: "earlier", at: "2026-01-01T11:00:00Z")
        let pending = try await testbed.pendingCount()
        XCTAssertEqual(pending, 4)
        let first = try await testbed.next()
        XCTAssertEqual(first, date("2026-01-01T11:00:00Z"))
        XCTAssertEqual(try testbed.shown().map(\.id), ["earlier"])
        let steps = try await testbed.runUntilIdle()
        XCTAssertEqual(steps, 1, "the three due together are one step")
        XCTAssertEqual(try testbed.shown().map(\.id), ["earlier", "zeta", "alpha", "mid"])

        try await testbed.push(.local(LocalNotification(id: "daily", title: "Daily", trigger: .calendar("*-*-* 08:00:00 UTC"))))
        do {
            try await testbed.runUntilIdle(limit: 3)
            XCTFail("a repeating schedule never goes idle")
        } catch {
            XCTAssertEqual(error.code, .runawayTimers)
        }
        XCTAssertEqual(try testbed.shown().filter { $0.id == "daily" }.count, 3)
    }

    func testSetIsAJump_advanceIsTimePassing() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        try await testbed.schedule(id: "tight", title: "Tight", at: "2026-01-01T01:00:00Z", graceSeconds: 60)
        try await testbed.schedule(id: "loose", title: "Loose", at: "2026-01-01T01:00:00Z", graceSeconds: 7200)
        try await testbed.setTime("2026-01-01T02:00:00Z")
        XCTAssertEqual(try testbed.shown().map { "\($0.id) \($0.late)" }, ["loose 3600.0"])
        let events = try await testbed.history().map { "\($0.id) \($0.event)" }
        XCTAssertEqual(Set(events), ["tight missed", "loose fired"])
        try await testbed.schedule(id: "later", title: "Later", at: "2026-01-01T05:00:00Z", graceSeconds: 60)
        try await testbed.advance("3h")
        XCTAssertEqual(try testbed.shown().last?.late, 0)
    }

    func testConcurrentCalls_andPagedReads() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z")
        defer { testbed.stop() }
        let client = testbed.client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    let outcome = try await client.push(.local(LocalNotification(
                        id: "c:\(i)", title: "T", trigger: .at("2026-01-01T06:00:00Z"), cancelOn: ["never"])))
                    XCTAssertEqual(outcome.first?.status, .scheduled)
                }
            }
            try await group.waitForAll()
        }
        let batch = (0..<1500).map { Push.local(LocalNotification(id: "b:\($0)", title: "B", trigger: .at("2026-01-01T07:00:00Z"))) }
        let answers = try await client.pushBatch(batch + [Push.local(LocalNotification(id: "", title: "bad", trigger: .at("x")))])
        XCTAssertEqual(answers.filter { (try? $0.get()) != nil }.count, 1500)
        guard case .failure(let rejected)? = answers.last else { return XCTFail("the last push is rejected") }
        XCTAssertEqual(rejected.code, .invalidPush)
        let pending = try await client.pending()
        XCTAssertEqual(pending.count, 1550, "two ListPage pages")
        XCTAssertEqual(pending.first?.cancelOn, ["never"])
        try await testbed.advance("1d")
        let fired = try await client.history().filter { $0.event == "fired" }
        XCTAssertEqual(fired.count, 1550)
        let newest = try await client.history(limit: 2)
        XCTAssertEqual(newest.map(\.id), fired.suffix(2).map(\.id))
    }

    func testStop_removesEverything() async throws {
        let testbed = try await Testbed.start()
        let directory = (testbed.shownPath as NSString).deletingLastPathComponent
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory))
        testbed.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory))
        do {
            _ = try await ScheddClient.connect(to: .address(testbed.address))
            XCTFail("the bus is gone")
        } catch {
            XCTAssertEqual(error.code, .unreachable)
        }
    }
}

final class ScheddClientAppTests: XCTestCase {
    func testDeclaredApps_haveNamespacesOfTheirOwn() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-01-01T00:00:00Z", app: "org.example.Shop")
        defer { testbed.stop() }
        try await testbed.schedule(id: "run_1:a", title: "Shop", at: "2026-01-01T10:00:00Z", cancelOn: ["checkout"])
        let mail = try await ScheddClient.connect(to: .address(testbed.address), app: "org.example.Mail")
        defer { mail.close() }
        _ = try await mail.push(.local(LocalNotification(id: "run_1:a", title: "Mail", trigger: .at("2026-01-01T10:00:00Z"),
                                                         cancelOn: ["checkout"])))
        let cancelled = try await mail.track("checkout")
        XCTAssertEqual(cancelled, Cancelled(count: 1, ids: ["run_1:a"], more: false))
        try await testbed.advance("1d")
        XCTAssertEqual(try testbed.shown().map(\.title), ["Shop"])
        do {
            _ = try await ScheddClient.connect(to: .address(testbed.address), app: "not a reverse-DNS id")
            XCTFail("a bad app id is rejected")
        } catch {
            XCTAssertEqual(error.code, .invalidArgument)
        }
    }
}
