import SchedCalendar
import XCTest
@testable import Scheduler

/// The statements one push runs (issue 19/20: the daemon's CPU per push is the bulk load's bound). A push
/// reads what it needs in one lookup (tombstones, pending and finished rows, `applied`) and one read of
/// its app's kept totals (count and bytes), then writes; counted by the connection's statement starts.
final class StorePushStatementsTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let app = "org.example.A"

    /// Statements started by `body` on `store`'s connection (its transaction's BEGIN/COMMIT included).
    func statements(_ store: SQLiteScheduleStore, _ body: () throws -> Void) rethrows -> Int {
        let before = store.db.statementsStarted
        try body()
        return store.db.statementsStarted - before
    }

    func testANewPush_readsOnceAndTheTotalsOnce_thenInserts() throws {
        let h = try EngineHarness(now: t0)
        let store = h.e.store
        let due = atFixed(t0.adding(seconds: 600))
        _ = try h.e.push(pushLocal(makeLocal("warm", due)), app: app, now: t0)
        let fresh = try statements(store) {
            XCTAssertEqual(try h.e.push(pushLocal(makeLocal("fresh", due)), app: app, now: t0).map(\.status), [.scheduled])
        }
        // BEGIN, pushLookup, pendingTotals, INSERT, the pending_counts upsert, COMMIT (before: 7, with isApplied,
        // and pendingCount then pendingBytes for pendingTotals). The upsert was the insert trigger's work until
        // schema 8: as a statement of its own the INSERT opens no statement journal (StoreMigration_V8).
        XCTAssertLessThanOrEqual(fresh, 6, "statements for one new push")
        let duplicate = try statements(store) {
            XCTAssertEqual(try h.e.push(pushLocal(makeLocal("fresh", due)), app: app, now: t0).map(\.status), [.duplicate])
        }
        XCTAssertLessThanOrEqual(duplicate, 3, "statements for a duplicate: BEGIN, pushLookup, COMMIT")
    }

    func testAnOlderVersionAfterANewer_isAnsweredByTheLookup_asDuplicate() throws {
        let h = try EngineHarness(now: t0)
        let store = h.e.store
        let first = makeLocal("v", atFixed(t0.adding(seconds: 600)), title: "one")
        let second = makeLocal("v", atFixed(t0.adding(seconds: 900)), title: "two")
        XCTAssertEqual(try h.e.push(pushLocal(first), app: app, now: t0).map(\.status), [.scheduled])
        XCTAssertEqual(try h.e.push(pushLocal(second), app: app, now: t0).map(\.status), [.replaced])
        // `first`'s digest now lives in `applied` only: the one lookup still sees it.
        let older = try statements(store) {
            XCTAssertEqual(try h.e.push(pushLocal(first), app: app, now: t0).map(\.status), [.duplicate])
        }
        XCTAssertLessThanOrEqual(older, 3, "statements for an older version: BEGIN, pushLookup, COMMIT")
        XCTAssertEqual(try store.schedules.schedule(app: app, id: "v")?.title, "two", "the newer version stays")
    }
}
