// Crash safety (issue 6 item 2): the real daemon killed with SIGKILL at 20 seeded moments while it takes
// pushes, bulk NDJSON loads, cancels, tracks and fake-clock advances; Tests/Support/torture/crash_torture.py
// holds the operation mix and the exact checks. The fake clock is not persisted: each restart passes the
// last acknowledged clock with --fake-clock.
//
// FINDING (main ed4f023; testACrashLosesAtMostTheOneDisplayInFlight fails): README ("A crash in between
// loses that one display") and docs/semantics.md ("that one display is lost") promise that a crash loses
// at most one display. The engine commits up to `Engine.firingBatchSize` (1000) firings in one transaction
// and only then shows them (Engine_Advance.swift), so a SIGKILL during a big `clock advance` (or a
// catch-up after a restart) loses every display of the batch not yet shown: 750 in one kill here (history
// says `fired`, nothing was shown). At-most-once still holds (nothing is shown twice). Fix, one of:
// (a) say so: "a crash loses at most the displays of the batch being delivered (≤ 1000)"; or (b) keep
// the loss to one: in `.wallClock` mode and for small advances commit and show one firing at a time
// (batching only pays for bulk catch-up), or record a durable "handed over" mark per firing and, at
// start, mark the unshown rest of an interrupted batch `missed` with reason `crash` so history tells the
// truth.
import XCTest

final class TortureCrashTests: XCTestCase {
    private static let run = CrashRun()

    /// No acknowledged push or cancel lost, no cancel undone, nothing shown twice, everything shown was
    /// recorded `fired` first, no duplicate `fired` record, `PRAGMA integrity_check` ok, 20 kills done.
    func testTwentySIGKILLsLoseNoAcknowledgedOperationAndShowNothingTwice() throws {
        let (status, output) = try Self.run.result()
        XCTAssertEqual(TortureHarness.violations(output), [])
        XCTAssertEqual(status, 0, "crash torture failed; its output is above")
        let counts = TortureHarness.counts(output)
        XCTAssertEqual(counts["integrity_check"], "ok")
        XCTAssertEqual(counts["kills"], "20")
        XCTAssertGreaterThan(Int(counts["notifications shown"] ?? "") ?? 0, 1000, "the run fired too little to mean much")
        XCTAssertGreaterThan(Int(counts["kills that interrupted an operation"] ?? "") ?? 0, 0)
    }

    /// README: "A crash in between loses that one display".
    func testACrashLosesAtMostTheOneDisplayInFlight() throws {
        let (_, output) = try Self.run.result()
        let largest = try XCTUnwrap(Int(TortureHarness.counts(output)["largest lost-display run"] ?? ""))
        XCTAssertLessThanOrEqual(largest, 1, "one SIGKILL lost \(largest) displays recorded as fired")
    }
}

/// Runs crash_torture.py once (seed 20261129, 20 kills) for the tests above.
private final class CrashRun: @unchecked Sendable {
    private let lock = NSLock()
    private var cached: (Int32, String)?

    func result() throws -> (status: Int32, output: String) {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let result = try TortureHarness.runDriver("crash_torture.py", ["--seed", "20261129", "--kills", "20"])
        cached = result
        return result
    }
}
