import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// The per-app pending counts (and, since step 6, bytes) the store keeps (the quota's O(1) read; by triggers from
/// schema step 5, by the store's own statements since step 12, docs/store.md "Who keeps the counts"): after every
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

    /// Inside one transaction the store holds its count additions in memory and remembers the quota's read
    /// (`PendingCounts`, issue 35). Through one group — apps interleaved, a replace and a cancel of rows added
    /// in the same transaction, a push the quota refuses, a member that fails after writing — the counts read
    /// inside the transaction are exact at every step, the quota refuses at exactly its bound, and after the
    /// commit `pending_counts` equals the rows.
    func testHeldCounts_inOneTransaction_areExactAtEveryStep() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let path = dir + "/held.db"
        let e = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc,
                           zones: ZoneDatabase.shared, maxPendingPerApp: 4, now: t0)
        defer { e.close() }
        let due = atFixed(t0.adding(seconds: 600))
        func statuses(_ results: [Result<[PushOutcome], EngineError>]) -> [String] {
            results.map { switch $0 { case .success(let o): "\(o.last!.status)"; case .failure(let error): "\(error.kind)" } }
        }
        var seen: [String] = []
        try e.group { () throws(EngineError) in
            let first = try e.groupMember { () throws(EngineError) in
                try e.pushEach([pushLocal(makeLocal("a1", due)), pushLocal(makeLocal("a2", due))], app: a, now: t0)
            }
            seen += statuses(first)
            _ = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("b1", due)), app: b, now: t0) }
            XCTAssertEqual(try e.pendingCount(app: a), 2)
            XCTAssertEqual(try e.pendingCount(app: b), 1)
            let second = try e.groupMember { () throws(EngineError) in
                try e.pushEach([pushLocal(makeLocal("a3", due)), pushLocal(makeLocal("a1", due, title: "changed")),
                                pushLocal(makeLocal("a4", due)), pushLocal(makeLocal("a5", due))], app: a, now: t0)
            }
            seen += statuses(second)
            XCTAssertEqual(try e.pendingCount(app: a), 4, "a1 replaced in the transaction that added it")
            do throws(EngineError) {
                _ = try e.groupMember { () throws(EngineError) in
                    _ = try e.push(pushLocal(makeLocal("b2", due)), app: b, now: t0)
                    throw EngineError(.invalidArgument, "this member fails after its write")
                }
            } catch {
                seen.append("\(error.kind)")
            }
            XCTAssertEqual(try e.pendingCount(app: b), 1, "the failed member's push is undone with its count")
            _ = try e.groupMember { () throws(EngineError) in try e.cancel(id: "a2", app: a, now: t0) }
            XCTAssertEqual(try e.pendingCount(app: a), 3)
            let third = try e.groupMember { () throws(EngineError) in
                try e.pushEach([pushLocal(makeLocal("a6", due)), pushLocal(makeLocal("a7", due))], app: a, now: t0)
            }
            seen += statuses(third)
        }
        XCTAssertEqual(seen, ["scheduled", "scheduled", "scheduled", "replaced", "scheduled", "quotaExceeded",
                              "invalidArgument", "scheduled", "quotaExceeded"])
        let (rows, kept) = try counts(path)
        XCTAssertEqual(rows, [a: 4, b: 1])
        XCTAssertEqual(kept, rows)
        for app in [a, b] {
            let bytes = try e.store.schedules.byNext(app: app, limit: nil, offset: 0).reduce(0) { $0 + e.store.schedules.storedBytes(of: $1) }
            XCTAssertEqual(try e.store.counts.pendingBytes(app: app), bytes, "\(app) bytes after the commit")
        }
    }

    /// The byte quota judged on remembered totals (one read per transaction, issue 35) refuses at the same
    /// push as one read per push would: `maxBytesPerApp` set to exactly three rows' bytes, five equal pushes
    /// in one call, the fourth and fifth refused naming the byte bound.
    func testTheByteQuota_inOneTransaction_refusesAtExactlyItsBound() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let due = atFixed(t0.adding(seconds: 600))
        // One row's bytes, measured on a first engine; nothing else of the app is kept.
        let row: Int
        do {
            let first = try Engine(databasePath: dir + "/one.db", notifier: ScriptedNotifier(), deviceZone: .utc,
                                   zones: ZoneDatabase.shared, now: t0)
            defer { first.close() }
            _ = try first.push(pushLocal(makeLocal("p0", due)), app: a, now: t0)
            row = try first.store.counts.pendingBytes(app: a)
            XCTAssertEqual(try first.store.counts.storedTotals(app: a).keptBytes, 0)
        }
        let e = try Engine(databasePath: dir + "/bytes.db", notifier: ScriptedNotifier(), deviceZone: .utc,
                           zones: ZoneDatabase.shared, maxBytesPerApp: 4 * row, now: t0)
        defer { e.close() }
        _ = try e.push(pushLocal(makeLocal("p0", due)), app: a, now: t0)
        let results = try e.pushEach((1...5).map { pushLocal(makeLocal("p\($0)", due)) }, app: a, now: t0)
        let refused = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        XCTAssertEqual(results.prefix(3).filter { if case .success = $0 { true } else { false } }.count, 3)
        XCTAssertEqual(refused.count, 2)
        XCTAssertTrue(refused.allSatisfy { $0.kind == .quotaExceeded && $0.message.contains("max-bytes-per-app") },
                      "\(refused.map(\.message))")
        XCTAssertEqual(try e.store.counts.pendingBytes(app: a), 4 * row)
    }

    /// The insert adds its bytes from Swift (`StoreRowCoding.storedBytes`, schema 8) and the delete takes
    /// away what its row's columns hold in SQL (`storedBytesSQL`, by trigger before schema 12, returned by
    /// the DELETE since): for rows with every optional column set or not, non-ASCII texts and a `detail`,
    /// the totals go back to exactly 0 when every row is cancelled.
    func testBytesAddedByTheInsert_areTheBytesTheDeleteRemoves() throws {
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

    /// `app number → (n, bytes)` counted from the rows with the schema-6 formula, and as `pending_counts` keeps them.
    func totals(_ db: SQLiteConnection) throws -> (rows: [Int64: [Int64]], kept: [Int64: [Int64]]) {
        func read(_ sql: String) throws -> [Int64: [Int64]] {
            let st = try db.statement(sql)
            defer { st.reset() }
            var result: [Int64: [Int64]] = [:]
            while try st.step() { result[st.int64(0)] = [st.int64(1), st.int64(2)] }
            return result
        }
        return (try read("SELECT app, count(*), sum(\(StoreRowCoding.storedBytesSQL(""))) FROM schedules GROUP BY app"),
                try read("SELECT app, n, bytes FROM pending_counts WHERE n <> 0 OR bytes <> 0"))
    }

    func triggers(_ db: SQLiteConnection) throws -> Set<String> {
        let st = try db.statement("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'schedules'")
        defer { st.reset() }
        var names: Set<String> = []
        while try st.step() { names.insert(st.string(0)) }
        return names
    }

    /// Schema 12 keeps `n` and `bytes` in one place, the store's statements: a schema-11 file (the v1
    /// fixture brought to 11) counts deletes and updates by trigger; once opened by this build those
    /// triggers are gone (the digest move into `applied` stays, as `schedules_forget`), and the totals it
    /// carried go on equal to the rows through firings of a repeating schedule (next-due updates), firings
    /// of one-shots, cancels and a restart.
    func testSchema12_countsByTheStoresStatementsOnly_fromTheTotalsASchema11FileHolds() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/schedd.db"
        StoreMigrationTests.copyFixture(to: path)
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(11)))
        XCTAssertEqual(try triggers(raw), ["pending_counts_delete", "pending_counts_update"], "schema 11 counts by trigger")
        let atEleven = try totals(raw)
        XCTAssertFalse(atEleven.rows.isEmpty, "the fixture has pending schedules")
        XCTAssertEqual(atEleven.kept, atEleven.rows)
        raw.close()

        let start = utc(2026, 3, 8, 5)
        var engine: Engine? = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc,
                                         zones: ZoneDatabase.shared, now: start)
        func check(_ step: String) throws {
            let db = try SQLiteConnection(openingExisting: path)
            defer { db.close() }
            XCTAssertEqual(try triggers(db), ["schedules_forget"], step)
            let (rows, kept) = try totals(db)
            XCTAssertEqual(kept, rows, "pending_counts after \(step)")
        }
        try check("the migration")
        let e = try XCTUnwrap(engine)
        _ = try e.push(pushLocal(makeLocal("hourly", .calendar("*-*-* *:30:00 UTC"), title: "Stündlich ✓",
                                           dataJSON: "{\"n\":1}")), app: a, now: start)
        _ = try e.push(pushLocal(makeLocal("once", atFixed(start.adding(seconds: 600)), body: "körper")), app: a, now: start)
        _ = try e.push(pushLocal(makeLocal("kept", atFixed(start.adding(seconds: 86_400 * 400)))), app: b, now: start)
        try check("pushes")
        _ = try e.advance(to: start.adding(seconds: 5 * 3600), mode: .timePassing)
        try check("firings of the hourly one and a one-shot")
        XCTAssertNotNil(try e.store.finished.record(app: a, id: "once"), "the one-shot fired")
        _ = try e.cancel(id: "hourly", app: a, now: start.adding(seconds: 5 * 3600))
        try check("a cancel of the repeating one")
        engine?.close()
        engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc,
                            zones: ZoneDatabase.shared, now: start.adding(seconds: 5 * 3600))
        _ = try engine?.advance(to: utc(2028, 1, 1), mode: .timePassing)
        try check("a restart and firing everything due before 2028")
        XCTAssertEqual(try engine?.store.counts.pendingCount(app: b), 0, "b's schedule fired")
        engine?.close()
    }
}
