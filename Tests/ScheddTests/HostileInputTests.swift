// Hostile input over D-Bus and the CLI (issue 6 item 4), driven by Tests/Support/torture/hostile_input.py
// against the real daemon. Each case must give a clear error, store nothing (row counts of every table
// unchanged) and leave the daemon answering.
//
// Regressions pinned here (found 2026-11-29 by these tests, fixed the same day):
// 1. Cancel/CancelRun took any string ("", 1 MiB, control characters) and stored a 30-day tombstone:
//    the engine now applies the id rule of CONTRACT §1 (testCancelIdsFollowTheIdRule).
// 2. The CLI replaced invalid UTF-8 with U+FFFD and stored the push: lines and arguments are now
//    validated and rejected with exit 1 (testCLIRejectsInvalidUTF8).
// 3. `schedd push` read its whole input into memory and aborted on 1 GiB: it now streams, rejecting a
//    line over 64 KiB without buffering it (testCLIBoundsEndlessInput).
// Also: `bk.local.data` over 16 KiB and a `title` holding U+0000 were accepted by the daemon's early
// stand-in decoder; testOverLimitMembersAreNamed keeps them rejected.
import XCTest

final class HostileInputTests: XCTestCase {
    /// The driver's verdict per case name (nil = passed), run once for all tests of this class.
    private static let verdicts = DriverVerdicts(driver: "hostile_input.py")

    private func assertCases(_ fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try Self.verdicts.assertPassed(fragments, file: file, line: line)
    }

    func testWrongSignaturesAndUnknownMethodsAreRefused() throws {
        try assertCases(["dbus wrong signature", "dbus unknown method", "busctl"])
    }

    func testOneMiBStringsAreRejectedOverDBus() throws {
        try assertCases(["dbus Push 1 MiB", "dbus PushBatch 1 MiB", "dbus PushBatch 100000", "dbus PushBatch 10000 ", "dbus PushBatch over 8 MiB", "dbus Track 1 MiB", "dbus ClockSet 1 MiB",
                         "dbus ClockZone 1 MiB", "UInt64.max", "UInt32.max"])
    }

    func testCancelIdsFollowTheIdRule() throws {
        try assertCases(["dbus Cancel ", "dbus CancelRun", "cli cancel"])
    }

    func testOverLimitMembersAreNamed() throws {
        try assertCases(["over-limit", "33-entry", "U+0000"])
    }

    func testZoneNamesThatArePathsAreRejected() throws {
        try assertCases(["ClockZone ..", "ClockZone /", "timeZone"])
    }

    func testHugeCancelOnAndDeepNestingAreRejected() throws {
        try assertCases(["100000-entry", "deep"])
    }

    func testCLIRejectsOneMiBFilesAndLines() throws {
        try assertCases(["cli push 1 MiB", "cli push NDJSON of three", "cli push a directory"])
    }

    func testCLIRejectsInvalidUTF8() throws {
        try assertCases(["UTF-8 title", "UTF-8 NDJSON", "UTF-8 id"])
    }

    func testCLIBoundsEndlessInput() throws {
        try assertCases(["endless line"])
    }

    /// 10,000 bad pushes as NDJSON, 1,000 as single D-Bus calls, 100 as single CLI calls, against a fresh
    /// daemon: every one rejected, nothing stored, VmRSS growth ≤ 50 MiB and VmHWM ≤ VmRSS before
    /// + 100 MiB (FLOOD_*_BOUND_KB in hostile_flood.py); over all cases VmHWM ≤ 256 MiB
    /// (RUN_PEAK_BOUND_KB in hostile_input.py).
    func testFloodOfBadPushesStoresNothingAndStaysBounded() throws {
        try assertCases(["flood of 10000 bad pushes", "peak memory over all cases"])
    }

    func testMarkupIsShownLiterally() throws {
        try assertCases(["markup shown literally"])
    }
}
