import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// Schema v6 on the real SQLite store (StoreMigration_V6.swift): apps as numbers, digests as 32-byte blobs
/// kept once, defaults left out of `detail`, the per-app history bound held in the inserting transaction,
/// the byte quota, and the unclean-shutdown rule of the integrity check.
final class StoreCompactRowsTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }
    let t0 = utc(2026, 3, 8, 5)

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    func scalar(_ store: SQLiteScheduleStore, _ sql: String) throws -> Int64 {
        let st = try store.db.statement(sql)
        defer { st.reset() }
        XCTAssertTrue(try st.step(), sql)
        return st.int64(0)
    }

    func oneShot(_ id: String, app: String = Engine.defaultApp, at: Instant, offset: Int? = 0) -> StoredSchedule {
        StoredSchedule(
            key: 0, app: app, id: id, kind: .fixedAt, spec: nil, atInstant: at, atOffset: offset, wall: nil, zone: nil,
            untilInstant: nil, untilWall: nil, untilZone: nil, next: at, lastDue: nil, title: "Reminder", body: nil,
            dataJSON: nil, cancelOn: [], graceSeconds: nil, urgency: .normal, icon: nil, category: nil, actions: [],
            messageId: nil, fingerprint: StoreCoding.digest(ofFingerprint: id), storedAt: at)
    }

    func testOneShot_storesNoDetail_andRoundTrips_withEveryOffset() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        let plain = oneShot("plain", at: t0)
        var offset = oneShot("offset", at: t0, offset: 3600)
        var none = oneShot("none", at: t0, offset: nil)
        var moved = oneShot("moved", at: t0)
        moved.next = t0.adding(seconds: 60)
        offset.messageId = "m"
        none.urgency = .low
        try store.transaction { () throws(StoreError) in
            for s in [plain, offset, none, moved] { _ = try store.schedules.insert(s) }
        }
        for var s in [plain, offset, none, moved] {
            let read = try XCTUnwrap(try store.schedules.schedule(app: Engine.defaultApp, id: s.id))
            s.key = read.key
            s.storedAt = s.next  // not kept for a fixed `at` (nothing reads it): read back as its next
            XCTAssertEqual(read, s, s.id)
        }
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM schedules WHERE id = 'plain' AND detail IS NULL"), 1,
                       "a one-shot at a UTC instant keeps nothing beyond its columns")
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM schedules WHERE typeof(digest) = 'blob' AND length(digest) = 32"), 4)
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM apps"), 1)
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM schedules WHERE typeof(app) = 'integer'"), 4)
    }

    func testDigest_isKeptOnce_andMovesToAppliedWhenItsRowGoes() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        let s = oneShot("a", app: "org.example.A", at: t0)
        let key = try store.transaction { () throws(StoreError) in try store.schedules.insert(s) }
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM applied"), 0, "the pending row holds the digest")
        XCTAssertTrue(try store.applied.contains(app: "org.example.A", id: "a", digest: s.fingerprint))
        XCTAssertFalse(try store.applied.contains(app: "org.example.B", id: "a", digest: s.fingerprint), "per app")
        var stored = s
        stored.key = key
        try store.transaction { () throws(StoreError) in try store.schedules.delete(stored) }
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM applied"), 1, "deleted: the digest moved to applied")
        XCTAssertTrue(try store.applied.contains(app: "org.example.A", id: "a", digest: s.fingerprint))
        // Finished with the same digest: kept by the finished row only; replaced: the old one moves.
        let finished = FinishedSchedule(app: "org.example.A", id: "a", fingerprint: s.fingerprint, outcome: .fired, due: t0,
                                        finishedAt: t0, keepUntil: t0.adding(seconds: 86_400), title: nil, messageId: nil,
                                        dataJSON: nil)
        try store.transaction { () throws(StoreError) in try store.finished.save(finished) }
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM applied"), 0)
        var newer = finished
        newer.fingerprint = StoreCoding.digest(ofFingerprint: "v2")
        try store.transaction { () throws(StoreError) in try store.finished.save(newer) }
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM applied"), 1)
        XCTAssertTrue(try store.applied.contains(app: "org.example.A", id: "a", digest: s.fingerprint))
        XCTAssertTrue(try store.applied.contains(app: "org.example.A", id: "a", digest: newer.fingerprint))
        try store.transaction { () throws(StoreError) in _ = try store.finished.purge(expiredBy: t0.adding(seconds: 90_000)) }
        XCTAssertTrue(try store.applied.contains(app: "org.example.A", id: "a", digest: newer.fingerprint),
                      "a purged finished record leaves its digest applied")
    }

    func testRolledBackApp_isNotRemembered() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertThrowsError(try store.transaction { () throws(StoreError) in
            _ = try store.schedules.insert(oneShot("x", app: "org.example.Gone", at: t0))
            throw StoreError(.io, "on purpose")
        })
        let key = try store.transaction { () throws(StoreError) in try store.schedules.insert(oneShot("y", app: "org.example.Kept", at: t0)) }
        XCTAssertEqual(try store.schedules.schedule(key: key)?.app, "org.example.Kept")
        XCTAssertEqual(try store.schedules.byNext(app: "org.example.Gone", limit: nil, offset: 0).count, 0)
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM apps"), 1)
    }

    /// The bound holds after every append, with no maintenance step in between (issue 19 item 4).
    func testHistory_neverAboveTheBound_betweenMaintenanceSteps() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        store.history.limitPerApp = 5
        for i in 0..<40 {
            let app = i % 4 == 0 ? "org.example.Small" : "org.example.Busy"
            try store.transaction { () throws(StoreError) in
                try store.history.append(HistoryRecord(app: app, id: "h\(i)", event: .fired, at: t0.adding(seconds: Int64(i)),
                                                      due: nil, reason: nil, lateSeconds: nil, title: "t",
                                                      messageId: nil, dataJSON: #"{"n":\#(i % 3)}"#))
            }
            for name in ["org.example.Small", "org.example.Busy"] {
                let count = try scalar(store, "SELECT count(*) FROM history WHERE app = '\(name)'")
                XCTAssertLessThanOrEqual(count, 5, "\(name) after \(i + 1) appends")
            }
        }
        XCTAssertEqual(try store.history.records(app: "org.example.Busy", limit: 100).map(\.id), ["h34", "h35", "h37", "h38", "h39"])
        XCTAssertEqual(try store.history.records(app: "org.example.Small", limit: 100).count, 5)
        XCTAssertEqual(try scalar(store, "SELECT count(*) FROM payloads"), 6, "payloads shared within each app (schema 9), orphans removed")
    }

    /// Through the engine: a per-minute schedule firing for hours with `maxRecords` 30 never holds more.
    func testEngine_historyCountStaysAtTheBound_whileFiring() throws {
        let retention = try HistoryRetention(days: 30, maxRecords: 30)
        let engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared,
                                retention: retention, now: t0)
        defer { engine.close() }
        let local = makeLocal("minutely", .calendar("*-*-* *:*:00"))
        XCTAssertEqual(try engine.push(pushLocal(local), now: t0).last?.status, .scheduled)
        var now = t0
        for _ in 0..<12 {
            now = now.adding(seconds: 600)
            _ = try engine.advance(to: now, mode: .timePassing)
            XCTAssertLessThanOrEqual(try engine.history(app: Engine.defaultApp, limit: 1000).count, 30)
        }
        XCTAssertEqual(try engine.history(app: Engine.defaultApp, limit: 1000).count, 30)
    }

    func testByteQuota_rejectsThePushOverIt_namingTheBound() throws {
        let engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared,
                                maxBytesPerApp: 4096, now: t0)
        defer { engine.close() }
        let body = String(repeating: "b", count: 1500)
        let due = atFixed(t0.adding(seconds: 600))
        for id in ["p1", "p2"] {
            XCTAssertEqual(try engine.push(pushLocal(makeLocal(id, due, body: body)), app: "org.example.A", now: t0).last?.status,
                           .scheduled)
        }
        XCTAssertThrowsError(try engine.push(pushLocal(makeLocal("p3", due, body: body)), app: "org.example.A", now: t0)) {
            XCTAssertEqual(($0 as? EngineError)?.kind, .quotaExceeded)
            XCTAssertTrue("\($0)".contains("max-bytes-per-app 4096"), "\($0)")
        }
        // Growing a pending schedule by replacement counts too; shrinking passes.
        XCTAssertThrowsError(try engine.push(pushLocal(makeLocal("p1", due, body: body + body)), app: "org.example.A", now: t0))
        XCTAssertEqual(try engine.push(pushLocal(makeLocal("p1", due, body: "short")), app: "org.example.A", now: t0).last?.status,
                       .replaced)
        XCTAssertEqual(try engine.push(pushLocal(makeLocal("p3", due, body: body)), app: "org.example.A", now: t0).last?.status,
                       .scheduled, "room after the shrink")
        XCTAssertEqual(try engine.push(pushLocal(makeLocal("p4", due, body: body)), app: "org.example.B", now: t0).last?.status,
                       .scheduled, "per app")
    }

    func testUncleanShutdown_isNoticed_andTheCheckFindsDamage() throws {
        let first = try SQLiteScheduleStore(path: path)
        XCTAssertFalse(first.openedAfterUncleanShutdown)
        _ = try first.transaction { () throws(StoreError) in try first.schedules.insert(oneShot("a", at: t0)) }
        // Not closed (as after kill -9): its write-ahead log is still there for the next opener.
        let second = try SQLiteScheduleStore(path: path)
        XCTAssertTrue(second.openedAfterUncleanShutdown)
        XCTAssertEqual(SQLiteScheduleStore.integrityCheck(path: path), [])
        second.close()
        first.close()
        let third = try SQLiteScheduleStore(path: path)
        XCTAssertFalse(third.openedAfterUncleanShutdown, "closed cleanly: no check owed")
        try third.transaction { () throws(StoreError) in
            for i in 0..<2000 { _ = try third.schedules.insert(oneShot("r\(i)", at: t0.adding(seconds: Int64(i)))) }
        }
        third.close()
        // Damage the pages after the schema's: found by the check (and by reading them), not by opening.
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        guard let f = fopen(path, "r+") else { return XCTFail("cannot reopen \(path)") }
        fseek(f, 8 * 4096, SEEK_SET)
        let garbage = [UInt8](repeating: 0xA5, count: 8 * 4096)
        _ = garbage.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        XCTAssertFalse(SQLiteScheduleStore.integrityCheck(path: path).isEmpty)
    }

    /// New databases get 8 KiB pages (fewer bytes per schedule, docs/store.md "Page size"); an existing
    /// file keeps the page size it was written with (SQLite cannot change it in WAL mode), and works.
    func testNewDatabase_gets8KiBPages_anExistingOneKeepsItsOwn() throws {
        let store = try SQLiteScheduleStore(path: path)
        try store.transaction { () throws(StoreError) in _ = try store.schedules.insert(oneShot("a", at: t0)) }
        XCTAssertEqual(try scalar(store, "PRAGMA page_size"), 8192)
        store.close()
        let reopened = try SQLiteScheduleStore(path: path)
        XCTAssertEqual(try scalar(reopened, "PRAGMA page_size"), 8192)
        XCTAssertNotNil(try reopened.schedules.schedule(app: Engine.defaultApp, id: "a"))
        reopened.close()

        let old = directory + "/v1.db"
        StoreMigrationTests.copyFixture(to: old)
        let migrated = try SQLiteScheduleStore(path: old)
        defer { migrated.close() }
        XCTAssertEqual(try scalar(migrated, "PRAGMA page_size"), 4096, "the fixture's page size, kept")
        try migrated.transaction { () throws(StoreError) in _ = try migrated.schedules.insert(oneShot("new-after-migration", at: t0)) }
        XCTAssertNotNil(try migrated.schedules.schedule(app: Engine.defaultApp, id: "new-after-migration"))
    }
}
