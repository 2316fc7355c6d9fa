import XCTest

/// Crash safety (issue 6 item 2): the real daemon killed with SIGKILL at 20 seeded moments while it
/// takes pushes, bulk loads, cancels, tracks and fake-clock advances; see
/// Tests/Support/torture/crash_torture.py for the operation mix and the exact checks.
///
/// Checks: every acknowledged push and cancel survives; nothing is shown twice and everything shown
/// was recorded `fired` first (at-most-once, docs/semantics.md); no duplicate `fired` record for one
/// (id, due); `PRAGMA integrity_check` is ok. The figures (operations, kills, notifications,
/// duration) are printed.
final class TortureCrashTests: XCTestCase {
    func testTwentySIGKILLsLoseNoAcknowledgedOperationAndShowNothingTwice() throws {
        let (status, output) = try TortureHarness.runDriver("crash_torture.py", ["--seed", "20261129", "--kills", "20"])
        XCTAssertEqual(TortureHarness.violations(output), [])
        XCTAssertEqual(status, 0, "crash torture failed; its output is above")
        XCTAssertTrue(output.contains("integrity_check                                            ok"))
        XCTAssertTrue(output.contains("kills                                                      20"))
    }
}
