import SchedCalendar
import XCTest
@testable import Scheduler

/// Schema step 7 (cancellation jobs) on the real schema-v1 fixture: the table arrives empty, the store
/// opens with no job under way (so no listing or insert pays for one), a job written survives a reopen,
/// and the job's queries read index ranges (EXPLAIN QUERY PLAN), never a scan of the schedules.
final class StoreMigrationV7Tests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }

    override func setUp() {
        directory = makeTemporaryDirectory()
        StoreMigrationTests.copyFixture(to: path)
    }
    override func tearDown() { removeTree(directory) }

    func testV1Fixture_throughStep7_hasNoJob_andAJobSurvivesAReopen() throws {
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(6)))
        XCTAssertEqual(try StoreSchema.currentVersion(raw), 6)
        raw.close()

        var store: SQLiteScheduleStore? = try SQLiteScheduleStore(path: path)
        XCTAssertEqual(try StoreSchema.currentVersion(store!.db), StoreSchema.version, "step 7 and every later one")
        XCTAssertFalse(store!.cancelJobs.mayExist)
        XCTAssertEqual(try store!.cancelJobs.all(), [])
        let bound = try store!.cancelJobs.bound()
        _ = try store!.transaction { () throws(StoreError) in
            try store!.cancelJobs.add(CancelJob(n: 0, app: Engine.defaultApp, kind: .event, name: "e", reason: "event:e",
                                              at: Instant(seconds: 1), bound: bound, remaining: 7))
        }
        store!.close()
        store = try SQLiteScheduleStore(path: path)
        defer { store?.close() }
        XCTAssertTrue(store!.cancelJobs.mayExist, "found at open from the small jobs table")
        XCTAssertEqual(try store!.cancelJobs.all().map(\.remaining), [7])
        XCTAssertEqual(try store!.cancelJobs.coveredRemaining(app: nil), 7)
        XCTAssertEqual(try store!.cancelJobs.bound(), bound)

        let db = store!.db
        let count = try queryPlan(db, "SELECT count(*) FROM schedule_events WHERE app = 1 AND event = 'e' AND key <= 5")
        XCTAssertTrue(count.contains("PRIMARY KEY") || count.contains("COVERING INDEX"), count)
        let slice = try queryPlan(db, "SELECT key FROM schedules WHERE key IN (SELECT key FROM schedule_events "
                             + "WHERE app = 1 AND event = 'e' AND key <= 5 ORDER BY key LIMIT 250) ORDER BY key")
        XCTAssertFalse(slice.contains("SCAN schedules"), slice)
        let run = try queryPlan(db, "SELECT count(*) FROM schedules AS s WHERE s.app = 1 AND (s.id = 'r' OR (s.id >= 'r:' AND s.id < 'r;'))")
        XCTAssertTrue(run.contains("schedules_by_id"), run)
    }
}
