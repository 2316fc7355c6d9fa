import XCTest
@testable import Scheduler

/// Schema step 6 (compact rows) on the real schema-v1 fixture: apps become numbers, digests blobs kept
/// once, `schedule_events` carries the app, the kept totals match the rows, and the queries use their
/// indexes (EXPLAIN QUERY PLAN; docs/store.md lists them).
final class StoreMigrationV6Tests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }

    override func setUp() {
        directory = makeTemporaryDirectory()
        StoreMigrationTests.copyFixture(to: path)
    }
    override func tearDown() { removeTree(directory) }

    func scalar(_ db: SQLiteConnection, _ sql: String) throws -> Int64 {
        let st = try db.statement(sql)
        defer { st.reset() }
        XCTAssertTrue(try st.step(), sql)
        return st.int64(0)
    }

    func testV1Fixture_throughStep6_keepsEveryRow_compactly() throws {
        // Before step 6: what the rows were.
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(5)))
        let schedules = try scalar(raw, "SELECT count(*) FROM schedules")
        let events = try scalar(raw, "SELECT count(*) FROM schedule_events")
        let finished = try scalar(raw, "SELECT count(*) FROM finished")
        XCTAssertGreaterThan(events, 0, "the fixture has cancelOn events")
        raw.close()

        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        let db = store.db
        XCTAssertEqual(try StoreSchema.currentVersion(db), StoreSchema.version)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM apps WHERE name = '\(Engine.defaultApp)'"), 1)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schedules WHERE app = (SELECT n FROM apps)"), schedules)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schedules WHERE typeof(digest) = 'blob' AND length(digest) = 32"),
                       schedules)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM finished WHERE length(digest) = 32"), finished)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schedule_events AS e JOIN schedules AS s "
                                      + "ON s.key = e.key AND s.app = e.app"), events, "every event row carries its app")
        XCTAssertEqual(try scalar(db, """
            SELECT count(*) FROM applied AS a WHERE EXISTS(SELECT 1 FROM schedules AS s
                WHERE s.app = a.app AND s.id = a.id AND s.digest = a.digest)
            """), 0, "a current digest is not kept twice")
        let counted = try scalar(db, "SELECT bytes FROM pending_counts")
        let recomputed = try store.schedules.byNext(app: Engine.defaultApp, limit: nil, offset: 0)
            .reduce(0) { $0 + store.schedules.storedBytes(of: $1) }
        XCTAssertEqual(Int(counted), recomputed, "the byte totals of migrated rows match what the store counts")
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM history_counts WHERE n = (SELECT count(*) FROM history)"), 1)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'schedules_by_next'"), 0)
        let check = try db.statement("PRAGMA integrity_check")
        XCTAssertTrue(try check.step())
        XCTAssertEqual(check.string(0), "ok")
        check.reset()
    }

    /// The queries that run, each on its index (the plans docs/store.md quotes).
    func testQueries_useTheirIndexes() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        let db = store.db
        let track = try queryPlan(db, "SELECT key FROM schedules WHERE key IN (SELECT key FROM schedule_events "
                                 + "WHERE app = 1 AND event = 'x') ORDER BY next_due, key")
        XCTAssertTrue(track.contains("SEARCH schedule_events USING PRIMARY KEY (app=? AND event=?)"), track)
        XCTAssertTrue(try queryPlan(db, "SELECT key FROM schedules WHERE app = 1 AND id = 'x'").contains("schedules_by_id"))
        let page = try queryPlan(db, "SELECT key FROM schedules WHERE app = 1 AND next_due > 5 ORDER BY next_due, key LIMIT 20")
        XCTAssertTrue(page.contains("schedules_by_app_next (app=? AND next_due>?)"), page)
        XCTAssertFalse(page.contains("TEMP B-TREE"), page)
        let restore = try queryPlan(db, "SELECT key, next_due FROM schedules INDEXED BY schedules_by_app_next")
        XCTAssertTrue(restore.contains("COVERING INDEX schedules_by_app_next"), restore)
        let zones = try queryPlan(db, "SELECT zone FROM schedules WHERE zone > '' ORDER BY zone LIMIT 1")
        XCTAssertTrue(zones.contains("schedules_by_zone"), zones)
        let applied = try queryPlan(db, "SELECT 1 FROM applied WHERE app = 1 AND id = 'x' AND digest = x'00'")
        XCTAssertTrue(applied.contains("PRIMARY KEY"), applied)
        let trim = try queryPlan(db, "SELECT seq, payload FROM history WHERE app = 'a' ORDER BY seq LIMIT 3")
        XCTAssertTrue(trim.contains("history_by_app"), trim)
    }
}
