import Foundation
import ScheddBus
import XCTest

/// Bounded requests and write replies against the real daemon on a stock bus (CONTRACT §9; issue 20
/// items 2 and 3): a PushBatch over either cap is refused whole and quickly, naming the cap, with
/// nothing stored, while another client's ClockShow is answered at once; a Track over many schedules
/// answers a count, a bounded list of ids and `more`.
final class BoundedCallsTests: XCTestCase {
    private static let scheduler = BusMethod(destination: "org.schedd.Scheduler1", path: "/org/schedd/Scheduler1",
                                             interface: "org.schedd.Scheduler1", member: "")

    private func method(_ member: String) -> BusMethod {
        var m = Self.scheduler
        m.member = member
        return m
    }

    private func pushBatch(_ bus: BusConnection, _ texts: [String]) throws(BusError) -> [String] {
        try bus.call(method("PushBatch"), timeoutMicroseconds: 300_000_000, { m throws(BusError) in try m.append(texts) },
                     read: { m throws(BusError) in try m.readStrings() })
    }

    private func pendingCount(_ bus: BusConnection) throws -> UInt32 {
        try bus.call(method("PendingCount"), { _ throws(BusError) in }, read: { m throws(BusError) in try m.readUInt32() })
    }

    /// Wall time of `body` in seconds.
    private func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let value = try body()
        return (value, secondsSince(start))
    }

    private func push(_ id: String, title: String = "t", cancelOn: String = "big") -> String {
        #"{"bk":{"local":{"id":"\#(id)","at":"2026-03-09T06:00:00Z","title":"\#(title)","cancelOn":["\#(cancelOn)"]}}}"#
    }

    func testPushBatchOverEachCap_isRefusedWholeAndQuickly_whileAnotherClientIsServed() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let caller = try BusConnection.open(.address(h.bus.address)), other = try BusConnection.open(.address(h.bus.address))
        let atCap = (0..<10_000).map { push("run_a:\($0)") }
        XCTAssertEqual(try pushBatch(caller, atCap).count, 10_000, "10,000 entries: at the cap, all answered")
        XCTAssertEqual(try pendingCount(caller), 10_000)

        let overCount = (0..<10_001).map { push("run_b:\($0)") }
        let bigTitle = String(repeating: "x", count: 1_000)
        let perEntry = push("run_c:00000", title: bigTitle).utf8.count
        let overBytes = (0..<((8 << 20) / perEntry + 1)).map { push(String(format: "run_c:%05d", $0), title: bigTitle) }
        XCTAssertGreaterThan(overBytes.reduce(0) { $0 + $1.utf8.count }, 8 << 20)
        XCTAssertLessThan(overBytes.count, 10_000)
        for (batch, cap) in [(overCount, "10000 entries"), (overBytes, "8388608 bytes")] {
            let (result, seconds) = timed { () -> Result<[String], BusError> in
                do throws(BusError) { return .success(try pushBatch(caller, batch)) } catch { return .failure(error) }
            }
            guard case .failure(let error) = result else { return XCTFail("over the cap (\(cap)) was accepted") }
            XCTAssertEqual(error.name, "org.schedd.Scheduler1.Error.InvalidArgument", "\(error)")
            XCTAssertTrue(error.detail.contains(cap), error.detail)
            XCTAssertLessThan(seconds, 1.0, "refused over \(cap) in \(seconds) s")  // liveness bound (issue 20)
            let (clock, clockSeconds) = try timed {
                try other.call(method("ClockShow"), { _ throws(BusError) in }, read: { m throws(BusError) in try m.readString() })
            }
            XCTAssertTrue(clock.contains("\"fake\":true"), clock)
            XCTAssertLessThan(clockSeconds, 0.1, "another client's ClockShow after the refusal took \(clockSeconds) s")
            XCTAssertEqual(try pendingCount(caller), 10_000, "nothing of the refused batch was stored")
        }
    }

    func testTrackOverManySchedules_answersACountABoundedListAndMore() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try BusConnection.open(.address(h.bus.address))
        for page in 0..<3 { _ = try pushBatch(bus, (0..<10_000).map { push("run_\(page):\($0)") }) }
        let answer = try bus.call(method("Track"), timeoutMicroseconds: 300_000_000,
                                  { m throws(BusError) in try m.append("big"); try m.append("") },
                                  read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
        XCTAssertEqual(answer.0, 30_000, "every schedule naming the event was cancelled")
        XCTAssertEqual(answer.1.count, 250, "the first slice is listed (at most ReplyBounds.maxRows ids)")
        XCTAssertTrue(answer.2, "more says the list is not all of them")
        XCTAssertEqual(Set(answer.1).count, 250)
        XCTAssertEqual(try pendingCount(bus), 0)
        let none = try bus.call(method("Cancel"), { m throws(BusError) in try m.append("run_0:0") },
                                read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
        XCTAssertEqual(none.0, 0)
        XCTAssertEqual(none.1, [])
        XCTAssertFalse(none.2)
    }

    private func track(_ bus: BusConnection, _ event: String) throws(BusError) -> (UInt32, [String], Bool) {
        try bus.call(method("Track"), timeoutMicroseconds: 300_000_000,
                     { m throws(BusError) in try m.append(event); try m.append("") },
                     read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
    }

    /// A page of history records, newest first, and the `before` of the next older page (0: none).
    private func historyPage(_ bus: BusConnection, before: UInt64) throws -> ([[String: Any]], UInt64) {
        let (text, next) = try bus.call(method("HistoryPage"), { m throws(BusError) in try m.append(before); try m.append(UInt32(1000)) },
                                        read: { m throws(BusError) in (try m.readString(), try m.readUInt64()) })
        let rows = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
        return (rows.reversed(), next)
    }

    /// The id of the newest history record.
    private func newestHistoryID(_ bus: BusConnection) throws -> String? {
        try historyPage(bus, before: 0).0.first?["id"] as? String
    }

    /// Every history record's (id, event, reason), newest first.
    private func allHistory(_ bus: BusConnection) throws -> [(id: String, event: String, reason: String?)] {
        var records: [(id: String, event: String, reason: String?)] = [], before: UInt64 = 0
        repeat {
            let (rows, next) = try historyPage(bus, before: before)
            records += rows.map { ($0["id"] as? String ?? "", $0["event"] as? String ?? "", $0["reason"] as? String) }
            before = next
        } while before != 0
        return records
    }

    /// Polls until the cancellation job has cancelled `last` (the schedule it reaches last), or fails.
    private func waitForJob(_ bus: BusConnection, last: String) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(600) * 1000))
        while try newestHistoryID(bus) != last {
            guard ContinuousClock.now < deadline else { return XCTFail("the cancellation job never reached \(last)") }
            usleep(50_000)
        }
    }

    /// 20,000 schedules naming `big`, all due at one instant (so the job's key order ends at run_1:9999).
    private func loadBig(_ bus: BusConnection) throws {
        for page in 0..<2 { _ = try pushBatch(bus, (0..<10_000).map { push("run_\(page):\($0)") }) }
    }

    /// The history holds exactly one `cancelled` record (reason event:big) for each of the 20,000.
    private func assertCompleteHistory(_ bus: BusConnection, file: StaticString = #filePath, line: UInt = #line) throws {
        let cancelled = try allHistory(bus).filter { $0.event == "cancelled" }
        XCTAssertEqual(cancelled.count, 20_000, "one record per cancelled schedule", file: file, line: line)
        XCTAssertEqual(Set(cancelled.map(\.id)).count, 20_000, "no schedule cancelled twice", file: file, line: line)
        XCTAssertTrue(cancelled.allSatisfy { $0.reason == "event:big" }, file: file, line: line)
    }

    /// The Track is answered with the exact count while most of it is still to cancel; another client's
    /// ClockShow is answered while the job is still under way (ORDER, not time: after that answer, the
    /// job's last schedule is not yet in the history); a push after the Track is not cancelled; nothing
    /// covered fires once due.
    func testTrackOverManySchedules_isSliced_anotherClientIsServedMeanwhile_andThePushAfterItIsKept() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try BusConnection.open(.address(h.bus.address)), other = try BusConnection.open(.address(h.bus.address))
        try loadBig(bus)
        let answer = try track(bus, "big")
        XCTAssertEqual(answer.0, 20_000, "the exact count, though most are cancelled after the answer")
        XCTAssertEqual(answer.1, (0..<250).map { "run_0:\($0)" }, "the first slice, in due order")
        XCTAssertTrue(answer.2)
        let clock = try other.call(method("ClockShow"), { _ throws(BusError) in }, read: { m throws(BusError) in try m.readString() })
        XCTAssertTrue(clock.contains("\"fake\":true"), clock)
        XCTAssertNotEqual(try newestHistoryID(bus), "run_1:9999", "the job was done before another client was answered")
        XCTAssertEqual(try pendingCount(bus), 0, "covered schedules are not counted from the answer on")
        let after = try pushBatch(bus, [push("after")])
        XCTAssertTrue(after.first?.contains("\"scheduled\"") ?? false, "\(after)")
        try waitForJob(bus, last: "run_1:9999")
        try assertCompleteHistory(bus)
        XCTAssertEqual(try pendingCount(bus), 1)
        try h.advance("2d")
        XCTAssertEqual(h.shown.compactMap { $0["id"] as? String }, ["after"], "only the push after the Track fired")
    }

    /// SIGTERM while the job runs: the daemon answers what it took off the bus and exits at once, leaving
    /// the job's remaining slices to the next start (its slices take turns in the app's lane, and a drain
    /// that ran them all would hold a stop for as long as the job: 80 slices here, a million-row job for
    /// minutes); the restarted daemon finishes it and the history ends complete, once each.
    func testSIGTERMDuringTheJob_exitsWithoutRunningItsSlices_restartCompletesIt() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try restartDuringTheJob(h, "stop") { XCTAssertEqual(h.stopDaemon(), 0) }
        try assertCompleteHistory(bus)
    }

    /// kill -9 while the job runs: the restarted daemon resumes it and the history ends complete, once each.
    func testKillDuringTheJob_restartCompletesIt_historyCompleteWithoutDuplicates() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try restartDuringTheJob(h, "kill") { h.killDaemon() }
        try assertCompleteHistory(bus)
        try h.advance("2d")
        XCTAssertEqual(h.shown.count, 0, "nothing covered fired")
    }

    /// Loads the big job's schedules, tracks `big`, ends the daemon with `end` while the job is under way
    /// (`how` names it), starts it again and waits until the restarted daemon has finished the job; the
    /// connection to it.
    private func restartDuringTheJob(_ h: ScheddHarness, _ how: String, end: () throws -> Void) throws -> BusConnection {
        var bus = try BusConnection.open(.address(h.bus.address))
        try loadBig(bus)
        XCTAssertEqual(try track(bus, "big").0, 20_000)
        XCTAssertNotEqual(try newestHistoryID(bus), "run_1:9999", "the job is under way")
        try end()
        try h.startDaemon(fakeClock: "2026-03-08T05:00:00Z")
        bus = try BusConnection.open(.address(h.bus.address))
        XCTAssertEqual(try pendingCount(bus), 0, "the job survived the \(how)")
        try waitForJob(bus, last: "run_1:9999")
        XCTAssertTrue(h.daemonStderr.contains("cancellation (event:big) [org.schedd.Default] done"),
                      "the restarted daemon finished the job: \(h.daemonStderr)")
        return bus
    }

    /// A PushBatch whose entries each cancel a run lists at most one reply's worth of ids IN ALL (CONTRACT
    /// §9), each entry's `more` counting what it left out.
    func testPushBatchOfRunCancels_listsAtMostOneReplysWorthOfIdsInAll() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try BusConnection.open(.address(h.bus.address))
        // Runs of 240: each cancelled at once (under one slice), so each entry alone would list all 240.
        _ = try pushBatch(bus, (0..<5).flatMap { run in (0..<240).map { push("run_\(run):\($0)") } })
        let answers = try pushBatch(bus, (0..<5).map { #"{"bk":{"cancel":{"run":"run_\#($0)"}}}"# })
        let entries = answers.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [[String: Any]] }
        XCTAssertEqual(entries.count, 5)
        let listed = entries.map { ($0.first?["cancelled"] as? [String])?.count ?? -1 }
        let more = entries.map { ($0.first?["more"] as? Int) ?? 0 }
        XCTAssertEqual(listed.reduce(0, +), 1_000, "ids listed across the reply: \(listed)")
        XCTAssertEqual(zip(listed, more).map { $0 + $1 }, [240, 240, 240, 240, 240], "each entry still counts all it cancelled")
        XCTAssertEqual(try pendingCount(bus), 0)
    }
}
