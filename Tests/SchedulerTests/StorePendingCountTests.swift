import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// The per-app pending counts (and, since step 6, bytes) that schema step 5 keeps by triggers (the quota's O(1) read): after every
/// kind of change — push, replace, cancel, run cancel, event, firing, a push the quota rejects (its
/// savepoint rolled back) and a restart — they equal a count of the rows themselves.
final class StorePendingCountTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let a = "org.example.A", b = "org.example.B"

    /// `app → rows` counted from `schedules`, and `app → n` from `pending_counts` (apps at 0 left out).
    func counts(_ path: String) throws -> (rows: [String: Int64], kept: [String: Int64]) {
        let db = try SQLiteConnection(openingExisting: path)
        defer { db.close() }
        func read(_ sql: String) throws -> [String: Int64] {
            let st = try db.statement(sql)
            defer { st.reset() }
            var result: [String: Int64] = [:]
            while try st.step() { result[st.string(0)] = st.int64(1) }
            return result
        }
        // Apps are numbers since schema step 6 (`apps`).
        return (try read("SELECT a.name, count(*) FROM schedules AS s JOIN apps AS a ON a.n = s.app GROUP BY s.app"),
                try read("SELECT a.name, p.n FROM pending_counts AS p JOIN apps AS a ON a.n = p.app WHERE p.n <> 0"))
    }

    func assertCountsAgree(_ h: EngineHarness, _ expected: [String: Int64], _ step: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let (rows, kept) = try counts(h.path)
        XCTAssertEqual(rows, expected, "rows after \(step)", file: file, line: line)
        XCTAssertEqual(kept, rows, "kept counts after \(step)", file: file, line: line)
        for (app, n) in expected {
            XCTAssertEqual(try h.e.store.counts.pendingCount(app: app), Int(n), "\(app) after \(step)", file: file, line: line)
            // The byte totals (schema step 6, the byte quota) follow the same changes.
            let bytes = try h.e.store.schedules.byNext(app: app, limit: nil, offset: 0).reduce(0) { $0 + h.e.store.schedules.storedBytes(of: $1) }
            XCTAssertEqual(try h.e.store.counts.pendingBytes(app: app), bytes, "\(app) bytes after \(step)", file: file, line: line)
        }
    }

    func testKeptCounts_followEveryChange_andEqualTheRows() throws {
        let h = try EngineHarness(now: t0)
        let soon = atFixed(t0.adding(seconds: 60)), later = atFixed(t0.adding(seconds: 3600))
        for id in ["run_1:a", "run_1:b", "run_2:a", "solo"] {
            _ = try h.e.push(pushLocal(makeLocal(id, later, cancelOn: ["checkout"])), app: a, now: t0)
        }
        _ = try h.e.push(pushLocal(makeLocal("fires", soon)), app: a, now: t0)
        _ = try h.e.push(pushLocal(makeLocal("run_1:a", later)), app: b, now: t0)
        try assertCountsAgree(h, [a: 5, b: 1], "pushes")
        _ = try h.e.push(pushLocal(makeLocal("solo", atFixed(t0.adding(seconds: 7200)))), app: a, now: t0)
        try assertCountsAgree(h, [a: 5, b: 1], "a replace")
        _ = try h.e.cancel(id: "solo", app: a, now: t0)
        try assertCountsAgree(h, [a: 4, b: 1], "a cancel")
        _ = try h.e.cancel(run: "run_1", app: a, now: t0)
        try assertCountsAgree(h, [a: 2, b: 1], "a run cancel")
        _ = try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        try assertCountsAgree(h, [a: 1, b: 1], "a firing")
        _ = try h.e.track(event: "checkout", app: a, dataJSON: nil, now: t0.adding(seconds: 60))
        try assertCountsAgree(h, [b: 1], "an event")
        try h.restart(now: t0.adding(seconds: 60))
        try assertCountsAgree(h, [b: 1], "a restart")
    }

    func testAPushTheQuotaRejects_leavesTheCountAsItWas() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let path = dir + "/q.db"
        let engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc,
                                zones: ZoneDatabase.shared,
                                maxPendingPerApp: 2, now: t0)
        defer { engine.close() }
        let due = atFixed(t0.adding(seconds: 600))
        let results = try engine.pushEach((1...4).map { pushLocal(makeLocal("q\($0)", due)) }, app: a, now: t0)
        XCTAssertEqual(results.filter { if case .failure = $0 { true } else { false } }.count, 2)
        let (rows, kept) = try counts(path)
        XCTAssertEqual(rows, [a: 2])
        XCTAssertEqual(kept, rows)
        XCTAssertEqual(try engine.store.counts.pendingCount(app: a), 2)
    }

    /// Since schema 8 the insert adds its bytes from Swift (`StoreRowCoding.storedBytes`) and the delete
    /// trigger takes them away in SQL (`storedBytesSQL`): for rows with every optional column set or not,
    /// non-ASCII texts and a `detail`, the totals go back to exactly 0 when every row is cancelled.
    func testBytesAddedByTheInsert_areTheBytesTheDeleteTriggerRemoves() throws {
        let h = try EngineHarness(now: t0)
        let later = atFixed(t0.adding(seconds: 3600))
        let locals = [
            makeLocal("plain", later),
            makeLocal("run_9:texts", later, title: "Grüße 🎉", body: "Körper — ü", dataJSON: "{\"k\":\"välue\"}"),
            makeLocal("run_9:cal", .calendar("Mon..Fri 09:00 Europe/Berlin"),
                      until: .fixed(utc(2027, 4, 3, 9), offsetSeconds: 0), cancelOn: ["done", "später"], grace: 90),
            makeLocal("wall", atWall(wall(2026, 3, 9, 8), zone: "Asia/Tokyo"), body: ""),
        ]
        for local in locals { _ = try h.e.push(pushLocal(local), app: a, now: t0) }
        try assertCountsAgree(h, [a: 4], "pushes of every shape")
        XCTAssertGreaterThan(try h.e.store.counts.pendingBytes(app: a), 4 * StoreRowCoding.rowOverhead)
        for local in locals { _ = try h.e.cancel(id: local.id, app: a, now: t0) }
        XCTAssertEqual(try h.e.store.counts.pendingCount(app: a), 0)
        XCTAssertEqual(try h.e.store.counts.pendingBytes(app: a), 0, "the bytes the inserts added, less what the deletes removed")
    }

    /// Schema 8 drops the insert trigger (its statement journal cost every push): a schema-7 file (the v1
    /// fixture brought to 7) has the trigger, and once opened by this build it has not and keeps counting.
    func testSchema8_dropsTheInsertTrigger_andStillCounts() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/schedd.db"
        StoreMigrationTests.copyFixture(to: path)
        func insertTriggers(_ db: SQLiteConnection) throws -> Int64 {
            let st = try db.statement("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'pending_counts_insert'")
            defer { st.reset() }
            XCTAssertTrue(try st.step())
            return st.int64(0)
        }
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(7)))
        XCTAssertEqual(try insertTriggers(raw), 1, "schema 7 counts by trigger")
        raw.close()
        let engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc,
                                zones: ZoneDatabase.shared, now: t0)
        defer { engine.close() }
        let migrated = try SQLiteConnection(openingExisting: path)
        XCTAssertEqual(try insertTriggers(migrated), 0, "schema 8 counts in the insert")
        migrated.close()
        let before = try engine.store.counts.pendingCount(app: b)
        _ = try engine.push(pushLocal(makeLocal("one", atFixed(t0.adding(seconds: 60)))), app: b, now: t0)
        XCTAssertEqual(try engine.store.counts.pendingCount(app: b), before + 1)
        let (rows, kept) = try counts(path)
        XCTAssertEqual(kept, rows)
    }
}
