import Foundation
import XCTest
import TestPrerequisites

/// The daemon-less commands against systemd 252 line for line (CONTRACT §6): `calendar`,
/// `timespan` and `timestamp` beside `systemd-analyze calendar|timespan|timestamp`, both run under
/// libfaketime at the same frozen instant so that "From now" lines compare too, under every form
/// of `TZ` (a name, `Etc/UTC`, a file path, POSIX strings, unset) — stdout and exit status alike.
final class CLIParityTests: XCTestCase {
    /// Sat 2026-03-07 12:00:00 UTC.
    private let frozen = "1772884800"
    private let zoneForms = ["UTC", "Etc/UTC", "Europe/London", "Africa/Abidjan", "America/New_York",
                             "/usr/share/zoneinfo/Europe/Berlin", "EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30", "UTC0",
                             "Australia/Lord_Howe", ""]

    /// Runs `executable` under libfaketime frozen at `frozen`, with `TZ` (unset when empty).
    private func frozenRun(_ executable: String, _ arguments: [String], tz: String,
                           environment: [String: String] = [:]) throws -> CommandResult {
        var env = environment
        env["FAKETIME_FMT"] = "%s"
        env["SYSTEMD_COLORS"] = "0"
        var args = ["-f", frozen]
        if tz.isEmpty { args = ["-f", frozen, "/usr/bin/env", "-u", "TZ"] } else { env["TZ"] = tz }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime") else {
            throw missingReference("faketime is not installed (scripts/install-deps.sh installs it)")  // never skipped in CI
        }
        return try runProcess("/usr/bin/faketime", args + [executable] + arguments, environment: env)
    }

    private func assertSameAsSystemd(_ verb: String, _ arguments: [String], tz: String, environment: [String: String] = [:],
                                     emptyOutput: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = try frozenRun("/usr/bin/systemd-analyze", [verb] + arguments, tz: tz, environment: environment)
        let ours = try frozenRun(Build.schedd, [verb] + arguments, tz: tz, environment: environment)
        XCTAssertEqual(reference.stdout.isEmpty, emptyOutput, "reference output for output for \(verb) \(arguments)", file: file, line: line)
        XCTAssertEqual(ours.stdout, reference.stdout, "schedd \(verb) \(arguments) TZ='\(tz)'", file: file, line: line)
        XCTAssertEqual(ours.status, reference.status == 0 ? 0 : 1, "exit of \(verb) \(arguments) TZ='\(tz)': \(ours.stderr)",
                       file: file, line: line)
    }

    func testCalendar_manySpecsWithARejectedOne_lineForLineUnderEveryTZForm() throws {
        let specs = ["Mon..Fri 9:00", "bogus", "weekly", "*-*-* 02:30", "2026-03-29 02:00..03:00:00/30", "*:0/20",
                     "Sat,Sun 10:00 Europe/Berlin", "minutely", "2020-01-01"]
        for tz in zoneForms {
            try assertSameAsSystemd("calendar", ["--iterations=3"] + specs, tz: tz)
            try assertSameAsSystemd("calendar", ["--base-time=2026-10-24 12:00:00 UTC", "--iterations=12"] + specs, tz: tz)
        }
    }

    func testCalendar_baseTime_takesSystemdTimestamps() throws {
        // Not a folded wall time here: libfaketime's own mktime call moves glibc's fold choice (see
        // SystemdTimestampDifferentialTests); schedd reads a fold as its first occurrence (§2).
        for base in ["2026-03-07 12:00:00 UTC", "@1767225600", "2026-11-01 03:30", "tomorrow", "+2h", "Sat 2026-03-07 11:00"] {
            try assertSameAsSystemd("calendar", ["--base-time=\(base)", "--iterations=2", "daily", "*-*-* 01:45"],
                                    tz: "America/New_York")
        }
        let bad = try runProcess(Build.schedd, ["calendar", "--base-time", "someday", "daily"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }

    func testCalendar_json_oneElementPerSpecInOrder_goingOnPastARejectedOne() throws {
        let result = try runProcess(Build.schedd, ["calendar", "--json", "--base-time", "2026-03-07T12:00:00Z",
                                                   "Mon..Fri 09:00", "bogus", "weekly"], environment: ["TZ": "UTC"])
        XCTAssertEqual(result.status, 1)
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(value.map { $0["spec"] as? String }, ["Mon..Fri 09:00", "bogus", "weekly"])
        XCTAssertEqual(value[0]["next"] as? [String], ["2026-03-09T09:00:00Z"])
        XCTAssertNotNil(value[1]["error"] as? String)
        XCTAssertNil(value[1]["next"])
        XCTAssertEqual(value[2]["normalized"] as? String, "Mon *-*-* 00:00:00")
        XCTAssertEqual(value[2]["next"] as? [String], ["2026-03-09T00:00:00Z"])
    }

    func testTimespan_lineForLine_stoppingAtTheFirstRejectedAsSystemdDoes() throws {
        let spans = ["1h 30min", "+3.1s", "23μs", "23µs", ".5s", "infinity", "0", "1y 2months 3.5d", "1.5", "5s500ms"]
        for locale in ["C.UTF-8", "C"] {
            try assertSameAsSystemd("timespan", spans, tz: "UTC", environment: ["LC_ALL": locale])
            try assertSameAsSystemd("timespan", ["2h", " 5. ", "3h"], tz: "UTC", environment: ["LC_ALL": locale])
            try assertSameAsSystemd("timespan", ["3.s"], tz: "UTC", environment: ["LC_ALL": locale], emptyOutput: true)
        }
    }

    func testTimespan_json_oneElementPerSpan() throws {
        let result = try runProcess(Build.schedd, ["timespan", "--json", "90s", "3. 1s", "infinity"])
        XCTAssertEqual(result.status, 1)
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(value.count, 3)
        XCTAssertEqual(value[0]["microseconds"] as? Int, 90_000_000)
        XCTAssertEqual(value[0]["human"] as? String, "1min 30s")
        XCTAssertNotNil(value[1]["error"] as? String)
        XCTAssertTrue(value[2]["microseconds"] is NSNull)
    }

    func testTimestamp_lineForLineUnderEveryTZForm() throws {
        let stamps = ["now", "tomorrow", "yesterday", "+5.25min", "5min ago", "2026-03-07 12:00:00.5", "Sat 2026-03-07",
                      "12:00", "Mar 07 12:00:00", "26-03-07", "today UTC", "2026-03-08 02:30", "@1767225600",
                      "bogus", "2026-02-31", "2026-07-07 12:00 CEST", "2026-07-07 12:00 EDT", "Fri 09:00"]
        for tz in zoneForms {
            try assertSameAsSystemd("timestamp", stamps, tz: tz)
        }
    }
}
