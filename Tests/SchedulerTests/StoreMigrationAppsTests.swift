import XCTest
@testable import Scheduler

/// Schema step 4 (apps) on the real schema-v1 fixture: every schedule, tombstone, finished record,
/// digest and history record from before apps belongs to the default app, keys and rowids intact.
final class StoreMigrationAppsTests: XCTestCase {
    func testV1Fixture_everythingBelongsToTheDefaultApp() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/schedd.db"
        StoreMigrationTests.copyFixture(to: path)
        // Step 4's columns as it wrote them: stop before step 6 interns apps as numbers.
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(5)))
        for table in ["schedules", "tombstones", "finished", "applied", "history", "failed_deliveries"] {
            let st = try raw.statement("SELECT count(*), count(DISTINCT app), min(app) FROM \(table)")
            XCTAssertTrue(try st.step())
            if st.int64(0) > 0 {
                XCTAssertEqual(st.int64(1), 1, table)
                XCTAssertEqual(st.string(2), Engine.defaultApp, table)
            }
            st.reset()
        }
        raw.close()
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        for table in ["tombstones", "history", "failed_deliveries"] {
            let st = try store.db.statement("SELECT count(*), count(DISTINCT app), min(app) FROM \(table)")
            XCTAssertTrue(try st.step())
            if st.int64(0) > 0 {
                XCTAssertEqual(st.int64(1), 1, table)
                XCTAssertEqual(st.string(2), Engine.defaultApp, table)
            }
            st.reset()
        }
        let pending = try store.schedules.byNext(app: Engine.defaultApp, limit: nil, offset: 0)
        XCTAssertFalse(pending.isEmpty)
        XCTAssertEqual(try store.schedules.byNext(app: "org.example.Other", limit: nil, offset: 0).count, 0)
        for s in pending {
            XCTAssertEqual(try store.schedules.schedule(key: s.key)?.id, s.id, "rowids (the wheel's keys) are kept")
            XCTAssertEqual(s.app, Engine.defaultApp)
        }
        XCTAssertEqual(try store.counts.pendingCount(app: Engine.defaultApp), pending.count)
        let check = try store.db.statement("PRAGMA integrity_check")
        XCTAssertTrue(try check.step())
        XCTAssertEqual(check.string(0), "ok")
        check.reset()
    }
}
