import Foundation
import XCTest

/// Hostile numbers against the real daemon on a private bus (CONTRACT §9, "No input crashes it";
/// issue 9 item 6): huge advances, absurd clock sets and spans are errors that name the supported
/// range, the fake clock stays where it was, and the daemon keeps answering.
final class OverflowCallsTests: XCTestCase {
    private var h: ScheddHarness!

    override func setUpWithError() throws { h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z") }
    override func tearDown() { h?.tearDown() }

    /// `busctl call` of one Scheduler1 method with raw arguments (so values the CLI refuses reach the daemon).
    private func call(_ method: String, _ signature: String, _ arguments: String...) throws -> CommandResult {
        try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "call", "org.schedd.Scheduler1",
                                           "/org/schedd/Scheduler1", "org.schedd.Scheduler1", method]
                                          + (signature.isEmpty ? [] : [signature]) + arguments)
    }

    private func now(file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        (try h.json(["clock", "show"], file: file, line: line) as? [String: Any])?["now"] as? String
    }

    private func assertRejected(_ result: CommandResult, naming fragments: [String],
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(result.status, 0, "accepted: \(result.stdout)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(result.stderr.contains(fragment), "'\(fragment)' missing in: \(result.stderr)", file: file, line: line)
        }
        XCTAssertTrue(h.daemon?.isRunning == true, "the daemon died: \(h.daemonStderr)", file: file, line: line)
    }

    func testClockAdvance_hugeSpans_areErrorsNamingTheRange_andTheClockStays() throws {
        let range = "0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z"
        // Twice 2^62 − 1 µs used to overflow Instant.adding and kill the daemon.
        for _ in 0..<2 {
            assertRejected(try call("ClockAdvance", "t", "4611686018427387903"), naming: ["clock advance", range])
        }
        assertRejected(try call("ClockAdvance", "t", "18446744073709551615"), naming: [range])
        assertRejected(try call("ClockAdvance", "t", "9223372036854775808"), naming: [range])
        XCTAssertEqual(try now(), "2026-03-08T05:00:00Z")
        // A span that fits is still fine.
        XCTAssertEqual(try call("ClockAdvance", "t", "1000000").status, 0)
        XCTAssertEqual(try now(), "2026-03-08T05:00:01Z")
    }

    func testClockSet_absurdTimes_areErrors_andTheEndOfTheRangeIsReachable() throws {
        let range = "0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z"
        assertRejected(try call("ClockSet", "s", "9999-12-31T23:59:59-23:59"), naming: ["outside the supported range", range])
        assertRejected(try call("ClockSet", "s", "0001-01-01T00:00:00+14:00"), naming: ["outside the supported range", range])
        assertRejected(try call("ClockSet", "s", "99999-01-01T00:00:00Z"), naming: ["clock set"])
        assertRejected(try call("ClockSet", "s", "@-9223372036854775808"), naming: ["clock set"])
        XCTAssertEqual(try now(), "2026-03-08T05:00:00Z")
        // The last second of the range, with pending schedules of every kind, then past it.
        XCTAssertEqual(try h.push(localPush(id: "late", at: "2030-01-01T00:00:00Z",
                                            extra: "\"graceSeconds\":3155760000")).count, 1)
        XCTAssertEqual(try h.push(localPush(id: "daily", calendar: "daily")).count, 1)
        XCTAssertEqual(try h.push(localPush(id: "end", at: "9999-12-31T23:59:59Z")).count, 1)
        XCTAssertEqual(try call("ClockSet", "s", "9999-12-31T23:59:58Z").status, 0, h.daemonStderr)
        XCTAssertEqual(try call("ClockAdvance", "t", "1000000").status, 0, h.daemonStderr)
        XCTAssertEqual(try now(), "9999-12-31T23:59:59Z")
        XCTAssertTrue(h.shown.contains { $0["id"] as? String == "end" }, "\(h.shown)")
        assertRejected(try call("ClockAdvance", "t", "1000000"), naming: [range, "at most 999999 µs"])
        XCTAssertEqual(try call("ClockAdvance", "t", "999999").status, 0, h.daemonStderr)
        XCTAssertEqual(try now(), "9999-12-31T23:59:59.999999Z")
        // The largest grace (100 years) is far exceeded: missed, computed without overflow.
        let history = try h.history()
        XCTAssertTrue(history.contains { $0["id"] as? String == "late" && $0["event"] as? String == "missed" }, "\(history)")
        XCTAssertFalse(h.shown.contains { $0["id"] as? String == "late" }, "\(h.shown)")
    }

    func testPushesBeyondTheRange_areRejected_andClockNextNamesTheRange() throws {
        let range = "0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z"
        // A fixed instant in year 10000 (the last second of 9999 at −23:59) names the range and stores nothing.
        let rejected = try h.cli(["push", "-", "--json"], stdin: localPush(id: "y10k", at: "9999-12-31T23:59:59-23:59"))
        XCTAssertEqual(rejected.status, 1, rejected.stdout + rejected.stderr)
        XCTAssertTrue(rejected.stdout.contains("bk.local.at: 10000-01-01T23:58:59Z is outside the supported range \(range)"),
                      rejected.stdout)
        XCTAssertEqual(try h.list().count, 0)
        // A floating wall time at the end of 9999 in a zone west of UTC resolves past the range: rejected
        // naming the range (issue 21), nothing stored.
        let adak = try h.cli(["push", "-", "--json"], stdin: localPush(id: "adak", at: "9999-12-31T23:59:59",
                                                                       extra: "\"timeZone\":\"America/Adak\""))
        XCTAssertEqual(adak.status, 1, adak.stdout + adak.stderr)
        XCTAssertTrue(adak.stdout.contains("bk.local.at: 9999-12-31T23:59:59 in America/Adak is 10000-01-01T09:59:59Z, "
                                           + "outside the supported range \(range)"), adak.stdout)
        XCTAssertEqual(try h.list().count, 0)
        // The same wall time floating in the device zone (UTC) fits; the device zone then moves west, so
        // it resolves past the range: ClockNext refuses to carry the clock there instead of leaving the range.
        XCTAssertEqual(try h.push(localPush(id: "floating", at: "9999-12-31T23:59:59")).first?["status"] as? String, "scheduled")
        _ = try h.json(["clock", "zone", "America/Adak"])
        assertRejected(try call("ClockNext", ""), naming: ["clock next", range])
        XCTAssertEqual(try now(), "2026-03-08T05:00:00Z")
    }

    func testHostileSpansFromTheCLI_areUsageErrors_andTheDaemonAnswers() throws {
        // Beyond the range (8,000 years from 2026), beyond UInt64 µs, malformed, negative, empty.
        for span in ["99999999999999999999999999", "8000y", "300000y", "1e400s", "-5s", "9223372036854775807us", "",
                     "1 2 3 x"] {
            let result = try h.cli(["clock", "advance", span])
            XCTAssertNotEqual(result.status, 0, "\(span): \(result.stdout)")
            XCTAssertFalse(result.stderr.isEmpty, span)
        }
        XCTAssertEqual(try now(), "2026-03-08T05:00:00Z")
        XCTAssertTrue(h.daemon?.isRunning == true, h.daemonStderr)
    }
}
