import Foundation
import SchedCalendar
import XCTest
@testable import Scheduler

/// Cancellation jobs are per app (issue 31 item 3): bounded per app (`Engine.maxCancelJobsPerApp`, the
/// call over it refused whole), found by `cancel_jobs_by_app`, and never read by another app's firing,
/// push or listing — checked by statement counts, SQLite's own count of the work done and the plan (the time
/// ratio is `schedd-bench canceljobs`'s, printed, never asserted).
final class EngineCancelJobsPerAppTests: XCTestCase {
    private let t0 = utc(2026, 3, 1, 12)
    private let a = "org.example.Flood", b = "org.example.Other"

    /// App A's runs `r0`…: `runs` × 300 schedules, due in a day.
    private func loadRuns(_ h: EngineHarness, runs: Int) throws {
        for r in 0..<runs {
            let pushes = (0..<300).map { pushLocal(makeLocal("r\(r):\($0)", atFixed(t0.adding(seconds: 86_400 + Int64($0))))) }
            _ = try h.e.pushBatch(pushes, app: a, now: t0)
        }
    }

    /// App B's 1,000 schedules due at `t0 + offset` s.
    private func loadB(_ h: EngineHarness, _ prefix: String, offset: Int64) throws {
        let pushes = (0..<1_000).map { pushLocal(makeLocal("\(prefix)\($0)", atFixed(t0.adding(seconds: offset)))) }
        _ = try h.e.pushBatch(pushes, app: b, now: t0)
    }

    private func statements(_ store: SQLiteScheduleStore, _ body: () throws -> Void) rethrows -> Int {
        let before = store.db.statementsStarted
        try body()
        return store.db.statementsStarted - before
    }

    func testJobsAreBoundedPerApp_theCallOverTheBoundIsRefusedWhole_andAnotherAppIsNotBounded() throws {
        let h = try EngineHarness(now: t0)
        let runs = Engine.maxCancelJobsPerApp + 2
        try loadRuns(h, runs: runs)
        for r in 0..<Engine.maxCancelJobsPerApp {
            XCTAssertEqual(try h.e.cancelReporting(run: "r\(r)", app: a, now: t0).unlisted, 50)
        }
        XCTAssertEqual(try h.e.cancelJobs().count, Engine.maxCancelJobsPerApp)
        let over = Engine.maxCancelJobsPerApp
        XCTAssertThrowsError(try h.e.cancelReporting(run: "r\(over)", app: a, now: t0)) {
            XCTAssertEqual(($0 as? EngineError)?.kind, .quotaExceeded)
            XCTAssertTrue("\($0)".contains("cancel-jobs-per-app \(Engine.maxCancelJobsPerApp)"), "\($0)")
        }
        let store = h.e.store
        XCTAssertFalse(try store.tombstones.contains(app: a, .run, "r\(over)"), "nothing of the refused call applied")
        XCTAssertEqual(try h.e.list(app: a, limit: nil).filter { $0.id.hasPrefix("r\(over):") }.count, 300)
        // A run small enough for one slice needs no job: it passes.
        _ = try h.e.pushBatch([pushLocal(makeLocal("small:1", atFixed(t0.adding(seconds: 600))))], app: a, now: t0)
        XCTAssertEqual(try h.e.cancel(run: "small", app: a, now: t0), ["small:1"])
        // When the jobs are done, the app may cancel again.
        while try h.e.cancelSlice(now: t0) != nil {}
        XCTAssertEqual(try h.e.cancelReporting(run: "r\(over)", app: a, now: t0).unlisted, 50)
    }

    func testAnotherAppsFiringsAndListings_neverReadTheJobs() throws {
        let h = try EngineHarness(now: t0)
        let store = h.e.store
        try loadRuns(h, runs: Engine.maxCancelJobsPerApp)
        try loadB(h, "before:", offset: 60)
        try loadB(h, "after:", offset: 180)
        // Without jobs: B's 1,000 firings and a page of B's.
        let firingsAlone = try statements(store) { _ = try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing) }
        let pageAlone = try statements(store) { _ = try h.e.list(app: b, limit: 20) }
        for r in 0..<Engine.maxCancelJobsPerApp { _ = try h.e.cancelReporting(run: "r\(r)", app: a, now: t0) }
        XCTAssertEqual(try h.e.cancelJobs().count, Engine.maxCancelJobsPerApp)
        // With A's jobs: the same statements for B, and B's listing SQL has no covering filter.
        let firingsWithJobs = try statements(store) { _ = try h.e.advance(to: t0.adding(seconds: 240), mode: .timePassing) }
        let pageWithJobs = try statements(store) { _ = try h.e.list(app: b, limit: 20) }
        XCTAssertEqual(h.notifier.shown.filter { $0.app == b }.count, 2_000)
        XCTAssertEqual(firingsWithJobs, firingsAlone, "B's firings read nothing of A's jobs")
        XCTAssertEqual(pageWithJobs, pageAlone)
        XCTAssertEqual(store.cancelJobs.uncoveredFilter(try store.schedules.lookupApp(b)), "", "B's listing has no NOT EXISTS over the jobs")
        XCTAssertNotEqual(store.cancelJobs.uncoveredFilter(try store.schedules.lookupApp(a)), "", "A's own listing leaves its covered ones out")
        // A's own lookups use the app index.
        let plan = try queryPlan(store.db, "SELECT n FROM cancel_jobs WHERE app = 1 AND bound >= 5 ORDER BY n")
        XCTAssertTrue(plan.contains("cancel_jobs_by_app"), plan)
    }

    /// The work of B's 1,000 firings, counted (never timed): the statements they run and the SQLite
    /// virtual-machine operations those statements execute (`SQLiteConnection.virtualMachineSteps`: rows and
    /// index entries visited, comparisons) are the same with A's jobs under way as without — on two stores
    /// loaded alike, one of them with the jobs. A firing that looked at A's jobs (a scan of `cancel_jobs`, a
    /// NOT EXISTS over them, a covering check for B's schedules) would add operations and fail this. The
    /// time ratio is measured by `schedd-bench canceljobs` (printed, not asserted).
    func testAnotherAppsFirings_doTheSameWorkWithTheJobs() throws {
        var work: [Bool: (statements: Int, steps: Int)] = [:]
        for jobs in [false, true] {
            let h = try EngineHarness(now: t0)
            let store = h.e.store
            try loadRuns(h, runs: Engine.maxCancelJobsPerApp)
            try loadB(h, "b:", offset: 60)
            if jobs { for r in 0..<Engine.maxCancelJobsPerApp { _ = try h.e.cancelReporting(run: "r\(r)", app: a, now: t0) } }
            XCTAssertEqual(try h.e.cancelJobs().count, jobs ? Engine.maxCancelJobsPerApp : 0)
            let stepsBefore = store.db.virtualMachineSteps
            let statements = try statements(store) { _ = try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing) }
            let steps = store.db.virtualMachineSteps - stepsBefore
            XCTAssertEqual(h.notifier.shown.filter { $0.app == b }.count, 1_000)
            XCTAssertGreaterThan(steps, 1_000, "the counter counts: each firing runs statements")
            work[jobs] = (statements, steps)
        }
        let alone = try XCTUnwrap(work[false]), withJobs = try XCTUnwrap(work[true])
        print("B's 1,000 firings: alone \(alone.statements) statements, \(alone.steps) VM steps; "
            + "with A's jobs \(withJobs.statements) statements, \(withJobs.steps) VM steps")
        XCTAssertEqual(withJobs.statements, alone.statements, "B's firings run no statement more with A's jobs")
        XCTAssertEqual(withJobs.steps, alone.steps, "B's firings visit nothing more with A's jobs")
    }
}
