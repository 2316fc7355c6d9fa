import Foundation
import XCTest

/// CONTRACT §11 "No flood" and "Status" end to end: the real daemon on a private bus with a fake clock,
/// `schedd clock sleep` as the resume (ClockSleep), `--notifier stdout` lines as what was shown.
final class SleepFoldTests: XCTestCase {
    private var harness: ScheddHarness!

    override func tearDown() { harness?.tearDown() }

    private func start(_ extra: [String] = []) throws {
        harness = try ScheddHarness(fakeClock: "2026-03-02T08:00:00Z", notifierArguments: ["--notifier", "stdout"] + extra)
    }

    /// Ten one-shots of the default app at 08:01…08:10, each with its own title.
    private func pushTen(app: String? = nil, prefix: String = "r") throws {
        let lines = (1...10).map { i in
            localPush(id: "\(prefix):\(i)", at: String(format: "2026-03-02T08:%02d:00Z", i), title: "Reminder \(i)")
        }
        let result = try harness.cli(["push", "-", "--json"] + (app.map { ["--app", $0] } ?? []), stdin: lines.joined(separator: "\n"))
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testSleep_tenLateOfOneApp_oneSummary_andTenFiredFoldedRecords() throws {
        try start()
        try pushTen()
        _ = try harness.push(localPush(id: "wake:1", at: "2026-03-02T08:05:30Z", title: "Alarm", extra: "\"alarm\":true"))
        try pushTen(app: "org.example.Other", prefix: "o")
        _ = try harness.json(["clock", "sleep", "1h"])
        let shown = harness.shown
        let mine = shown.filter { $0["app"] as? String == "org.schedd.Default" }
        XCTAssertEqual(mine.map { $0["id"] as? String }, ["schedd:folded", "wake:1"],
                       "one summary for the ten, the alarm on its own: \(mine)")
        let summary = mine[0]
        XCTAssertEqual(summary["title"] as? String, "10 reminders while this computer was asleep")
        let body = try XCTUnwrap(summary["body"] as? String)
        XCTAssertEqual(body.split(separator: "\n").map(String.init),
                       ["• Reminder 1", "• Reminder 2", "• Reminder 3", "• Reminder 4", "• Reminder 5", "and 5 more"])
        XCTAssertEqual(mine[1]["alarm"] as? Bool, true)
        XCTAssertEqual(mine[1]["urgency"] as? String, "critical")
        let other = shown.filter { $0["app"] as? String == "org.example.Other" }
        XCTAssertEqual(other.map { $0["id"] as? String }, ["schedd:folded"], "folded per app")

        let history = try harness.history()
        let fired = history.filter { $0["event"] as? String == "fired" }
        XCTAssertEqual(fired.count, 11)
        let folded = fired.filter { $0["folded"] as? Bool == true }.compactMap { $0["id"] as? String }
        XCTAssertEqual(Set(folded), Set((1...10).map { "r:\($0)" }), "every one recorded fired, folded")
        XCTAssertNil(fired.first { $0["id"] as? String == "wake:1" }?["folded"], "an alarm is never folded")
        XCTAssertTrue(folded.allSatisfy { id in (fired.first { $0["id"] as? String == id }?["late"] as? Double ?? 0) > 0 })

        let status = try XCTUnwrap(try harness.json(["status"]) as? [String: Any])
        let sleep = try XCTUnwrap(status["sleep"] as? [String: Any])
        XCTAssertEqual(sleep["lastSleep"] as? String, "2026-03-02T08:00:00Z")
        XCTAssertEqual(sleep["lastResume"] as? String, "2026-03-02T09:00:00Z")
    }

    func testThreeLate_areShownEachOnTheirOwn() throws {
        try start()
        for i in 1...3 { _ = try harness.push(localPush(id: "t:\(i)", at: "2026-03-02T08:0\(i):00Z", title: "T\(i)")) }
        _ = try harness.json(["clock", "sleep", "30min"])
        XCTAssertEqual(harness.shown.map { $0["id"] as? String }, ["t:1", "t:2", "t:3"])
        XCTAssertTrue(try harness.history().allSatisfy { $0["folded"] == nil })
    }

    func testClockJump_foldsWithItsOwnWords_andTimePassingNeverFolds() throws {
        try start()
        for i in 1...4 { _ = try harness.push(localPush(id: "j:\(i)", at: "2026-03-02T08:0\(i):00Z", title: "J\(i)")) }
        for i in 1...4 { _ = try harness.push(localPush(id: "p:\(i)", at: "2026-03-02T09:0\(i):00Z", title: "P\(i)")) }
        _ = try harness.json(["clock", "set", "2026-03-02T08:30:00Z"])
        XCTAssertEqual(harness.shown.map { $0["title"] as? String }, ["4 reminders the clock skipped past"])
        try harness.advance("1h")
        XCTAssertEqual(harness.shown.dropFirst().map { $0["id"] as? String }, ["p:1", "p:2", "p:3", "p:4"],
                       "on time (time passing) is never folded")
    }

    func testFoldThresholdOption_zeroNeverFolds_andStatusSaysIt() throws {
        try start(["--fold-threshold", "0"])
        try pushTen()
        _ = try harness.json(["clock", "sleep", "1h"])
        XCTAssertEqual(harness.shown.count, 10)
        let status = try XCTUnwrap(try harness.json(["status"]) as? [String: Any])
        XCTAssertEqual(status["foldThreshold"] as? Int, 0)
    }

    func testFoldThresholdOption_rejectsBadValues() throws {
        let result = try runProcess(Build.schedd, ["run", "--fold-threshold", "-1", "--bus", "unix:path=/nonexistent"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--fold-threshold needs a whole number"), result.stderr)
    }

    func testStart_catchUp_foldsAsNotRunning() throws {
        try start()
        for i in 1...5 { _ = try harness.push(localPush(id: "s:\(i)", at: "2026-03-02T08:0\(i):00Z", title: "S\(i)")) }
        harness.stopDaemon()
        try harness.startDaemon(fakeClock: "2026-03-02T08:45:00Z")
        XCTAssertTrue(waitUntil { !harness.shown.isEmpty })
        XCTAssertEqual(harness.shown.map { $0["title"] as? String }, ["5 reminders while schedd was not running"])
    }

    func testStatus_json_humanAndWake() throws {
        try start()
        let answers = try harness.push(localPush(id: "w:1", at: "2026-03-02T09:00:00Z", title: "Wake me", extra: "\"wake\":true"))
        XCTAssertEqual(answers.first?["wake"] as? String, "unavailable", "no RTC alarm here, and a fake clock")
        let reason = try XCTUnwrap(answers.first?["wakeReason"] as? String)
        XCTAssertFalse(reason.isEmpty)
        let plain = try harness.push(localPush(id: "n:1", at: "2026-03-02T10:00:00Z"))
        XCTAssertNil(plain.first?["wake"], "no wake member without wake: true")

        let status = try XCTUnwrap(try harness.json(["status"]) as? [String: Any])
        XCTAssertEqual(status["version"] as? String, "0.1")
        XCTAssertEqual(status["pending"] as? Int, 2)
        XCTAssertEqual(status["snoozed"] as? Int, 0)
        XCTAssertEqual(status["nextDue"] as? String, "2026-03-02T09:00:00Z")
        let database = try XCTUnwrap(status["database"] as? [String: Any])
        XCTAssertEqual(database["path"] as? String, harness.databasePath)
        XCTAssertGreaterThan(database["bytes"] as? Int ?? 0, 0)
        XCTAssertEqual((status["notifier"] as? [String: Any])?["kind"] as? String, "stdout")
        let wake = try XCTUnwrap(status["wake"] as? [String: Any])
        XCTAssertEqual(wake["capability"] as? String, "unavailable")
        XCTAssertEqual(wake["reason"] as? String, reason, "the push answer and status say the same")
        XCTAssertTrue((status["bus"] as? String ?? "").contains(harness.bus.address))
        XCTAssertNotNil(status["sleep"] as? [String: Any])

        let human = try harness.cli(["status"])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertTrue(human.stdout.contains("Pending:  2, snoozed 0"), human.stdout)
        XCTAssertTrue(human.stdout.contains("Wake:     unavailable: \(reason)"), human.stdout)
        XCTAssertTrue(human.stdout.contains("Database: \(harness.databasePath)"), human.stdout)
        XCTAssertTrue(harness.daemonStderr.contains("wake timers unavailable: \(reason)"), "logged once at start")
    }

    func testStatus_withoutDaemon_exits3_withTheHint() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        let result = try runProcess(Build.schedd, ["status", "--bus", bus.address])
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.contains("schedd run"), "the no-daemon hint: \(result.stderr)")
    }

    func testClockSleep_onTheRealClock_isNotFakeClock() throws {
        harness = try ScheddHarness(fakeClock: nil)
        let result = try harness.cli(["clock", "sleep", "1h"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("real clock"), result.stderr)
    }
}
