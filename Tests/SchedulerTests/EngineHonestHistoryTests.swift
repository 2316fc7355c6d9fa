import SystemZones
import Glibc
import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §5 "honest history": a `fired` record is confirmed only by the commit after its hand-over;
/// after a crash the restarted engine marks what it cannot confirm `unconfirmed` and never shows it again.
/// A crash is simulated exactly: the database files are copied at the moment of a hand-over (what a
/// `kill -9` then leaves on disk), and an engine is opened on the copy.
final class EngineHonestHistoryTests: XCTestCase {
    let t0 = utc(2026, 3, 1, 12)

    /// Copies `path` and its WAL to `crash.db` in the same directory.
    static func snapshot(_ path: String) -> String {
        let copy = (path as NSString).deletingLastPathComponent + "/crash.db"
        for suffix in ["", "-wal"] {
            unlink(copy + suffix)
            if let bytes = FileManager.default.contents(atPath: path + suffix) {
                _ = FileManager.default.createFile(atPath: copy + suffix, contents: bytes)
            }
        }
        unlink(copy + "-shm")
        return copy
    }

    func testOnTimeFirings_leaveAtMostOneUnconfirmed_perCrash() throws {
        let h = try EngineHarness(now: t0)
        for i in 0..<3 { try h.push(makeLocal("r\(i)", atFixed(t0.adding(seconds: Int64(60 + i)))), now: t0) }
        var crashCopy: String?
        h.notifier.onShow = { [path = h.path] n in if n.id == "r2" { crashCopy = Self.snapshot(path) } }
        for i in 0..<3 { try h.e.advance(to: t0.adding(seconds: Int64(60 + i)), mode: .timePassing) }
        XCTAssertEqual(h.notifier.shown.map(\.id), ["r0", "r1", "r2"])

        let notifier = ScriptedNotifier()
        let revived = try Engine(databasePath: try XCTUnwrap(crashCopy), notifier: notifier, deviceZone: .utc,
                                 zones: ZoneDatabase.shared,
                                 now: t0.adding(seconds: 63))
        defer { revived.close() }
        XCTAssertEqual(revived.unconfirmedAtStart, 1)
        XCTAssertEqual(try revived.history(limit: 10).map(\.event), [.fired, .fired, .unconfirmed],
                       "r0 and r1 were confirmed by the commits after them; r2's hand-over was never confirmed")
        try revived.advance(to: t0.adding(seconds: 9000), mode: .wallClock)
        XCTAssertEqual(notifier.shown.map(\.id), [], "an unconfirmed firing is never shown again")
    }

    func testCatchUpBatch_crashBeforeConfirmation_marksTheWholeBatchUnconfirmed() throws {
        // Fold threshold 0: five late ones would be one summary (SleepFoldTests); here each is handed over.
        let h = try EngineHarness(foldThreshold: 0, now: t0)
        for i in 0..<5 { try h.push(makeLocal("c\(i)", atFixed(t0.adding(seconds: Int64(60 + i)))), now: t0) }
        var crashCopy: String?
        h.notifier.onShow = { [path = h.path] n in if n.id == "c2" { crashCopy = Self.snapshot(path) } }
        try h.e.advance(to: t0.adding(seconds: 600), mode: .wallClock)  // a catch-up: one batch
        let revived = try Engine(databasePath: try XCTUnwrap(crashCopy), notifier: ScriptedNotifier(),
                                 deviceZone: .utc, zones: ZoneDatabase.shared, now: t0.adding(seconds: 601))
        defer { revived.close() }
        XCTAssertEqual(revived.unconfirmedAtStart, 5)
        XCTAssertLessThanOrEqual(revived.unconfirmedAtStart, Engine.firingBatchSize)
        XCTAssertEqual(try revived.history(limit: 10).map(\.event), Array(repeating: .unconfirmed, count: 5))
        XCTAssertEqual(revived.pendingCount, 0)
    }

    func testConfirmation_ridesOnTheNextCommit_orTheCleanClose() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60))), now: t0)
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        let unconfirmed = try SQLiteConnection(openingExisting: h.path)
        let count = try unconfirmed.statement("SELECT count(*) FROM history WHERE confirmed = 0")
        XCTAssertTrue(try count.step())
        XCTAssertEqual(count.int64(0), 1, "no commit of its own: confirmed by the next one")
        count.reset()
        try h.push(makeLocal("b", atFixed(t0.adding(seconds: 120))), now: t0.adding(seconds: 61))
        XCTAssertTrue(try count.step())
        XCTAssertEqual(count.int64(0), 0, "the next push's commit carried the confirmation")
        count.reset()
        try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing)
        try h.restart(now: t0.adding(seconds: 130))
        XCTAssertEqual(h.e.unconfirmedAtStart, 0, "a clean close commits the pending confirmation")
        XCTAssertEqual(try h.history().map(\.event), [.fired, .fired])
        unconfirmed.close()
    }
}
