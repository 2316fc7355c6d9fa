import SeededRandomness
import Foundation
import XCTest

/// `schedd calendar` and `schedd resolve` (no daemon) against their references:
/// `systemd-analyze calendar` and Python's zoneinfo (Tests/Support/zoneinfo_resolve.py).
final class CalendarResolveCommandTests: XCTestCase {
    private let specs = ["Mon..Fri 09:00", "daily", "*-*-* 02:30", "*-*-01 08:30", "Sat,Sun *-*-* 10:00:00",
                         "*:0/20", "*-02-29 12:00", "weekly", "*-*~1 18:00", "2026-03-29 02:00..03:00:00/30"]

    func testCalendar_humanOutput_matchesSystemdAnalyze_exceptFromNow() throws {
        for zone in ["Europe/Berlin", "America/New_York", "UTC"] {
            for base in ["2026-03-27 00:00:00 UTC", "2026-10-31 12:00:00 UTC"] {
                let iso = base.replacingOccurrences(of: " UTC", with: "Z").replacingOccurrences(of: " ", with: "T")
                let reference = try runProcess("/usr/bin/systemd-analyze",
                                               ["calendar", "--iterations=5", "--base-time=\(base)"] + specs,
                                               environment: ["TZ": zone])
                let ours = try runProcess(Build.schedd, ["calendar", "--iterations", "5", "--base-time", iso] + specs,
                                          environment: ["TZ": zone])
                XCTAssertEqual(ours.status, reference.status, ours.stderr)
                let strip = { (text: String) in text.split(separator: "\n").filter { !$0.contains("From now:") } }
                XCTAssertEqual(strip(ours.stdout), strip(reference.stdout), "TZ=\(zone) base \(base)")
            }
        }
    }

    func testCalendar_json_listsNormalizedFormAndElapsesInUTC() throws {
        let result = try runProcess(Build.schedd, ["calendar", "--json", "--tz", "America/New_York", "--base-time",
                                                   "2026-03-07T12:00:00Z", "--iterations", "3", "*-*-* 02:30"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(value?.first?["spec"] as? String, "*-*-* 02:30")
        XCTAssertEqual(value?.first?["normalized"] as? String, "*-*-* 02:30:00")
        let expected = try systemdUTCElapses("*-*-* 02:30", zone: "America/New_York", base: "2026-03-07 12:00:00 UTC", n: 3)
        XCTAssertEqual(value?.first?["next"] as? [String], expected)
    }

    func testCalendar_badSpec_isRejectedWithExit1() throws {
        let json = try runProcess(Build.schedd, ["calendar", "--json", "Someday 25:00"])
        XCTAssertEqual(json.status, 1)
        let error = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first
        XCTAssertEqual(error?["spec"] as? String, "Someday 25:00")
        XCTAssertNotNil(error?["error"] as? String)
        let human = try runProcess(Build.schedd, ["calendar", "daily", "Someday 25:00"])
        XCTAssertEqual(human.status, 1)
        XCTAssertTrue(human.stderr.contains("Failed to parse calendar specification 'Someday 25:00'"), human.stderr)
        XCTAssertTrue(human.stdout.contains("Original form: daily"), human.stdout)
        XCTAssertEqual(try runProcess(Build.schedd, ["calendar", "daily", "--tz", "Nowhere/City"]).status, 1)
        XCTAssertEqual(try runProcess(Build.schedd, ["calendar", "daily", "--iterations", "x"]).status, 2)
    }

    func testResolve_matchesPythonZoneinfo_aroundTransitionsAndAtSeededRandomTimes() throws {
        var cases: [(zone: String, wall: String)] = []
        let transitionDays = [("America/New_York", "2026-03-08"), ("America/New_York", "2026-11-01"),
                              ("Europe/Berlin", "2026-03-29"), ("Europe/Berlin", "2026-10-25"),
                              ("Australia/Lord_Howe", "2026-04-05"), ("Australia/Lord_Howe", "2026-10-04"),
                              ("America/St_Johns", "2026-03-08"), ("Europe/Dublin", "2026-10-25")]
        for (zone, day) in transitionDays {
            for minutes in stride(from: 0, to: 4 * 60, by: 10) {
                cases.append((zone, "\(day)T\(twoDigit(minutes / 60)):\(twoDigit(minutes % 60))"))
            }
        }
        var rng = SplitMix64(seed: 20261129)
        let zones = ["America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "America/Sao_Paulo"]
        for _ in 0..<200 {
            let year = 1990 + Int(rng.next() % 50), month = 1 + Int(rng.next() % 12), day = 1 + Int(rng.next() % 28)
            let hour = Int(rng.next() % 24), minute = Int(rng.next() % 60)
            cases.append((zones[Int(rng.next() % UInt64(zones.count))],
                          "\(year)-\(twoDigit(month))-\(twoDigit(day))T\(twoDigit(hour)):\(twoDigit(minute))"))
        }
        let input = cases.map { c -> String in
            let digits = c.wall.split(whereSeparator: { "-T:".contains($0) }).map { String(Int($0)!) }
            return ([c.zone] + digits + ["0", "0"]).joined(separator: " ")
        }.joined(separator: "\n")
        let inputPath = "/tmp/schedd-resolve-cases-\(getpid())"
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        defer { unlink(inputPath) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/zoneinfo_resolve.py").path
        let reference = try runProcess("/usr/bin/python3", [script, inputPath])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let expected = reference.lines.map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(expected.count, cases.count)
        var byZone: [String: [Int]] = [:]
        for (i, c) in cases.enumerated() { byZone[c.zone, default: []].append(i) }
        for (zone, indices) in byZone {
            let result = try runProcess(Build.schedd, ["resolve", "--json", "--tz", zone] + indices.map { cases[$0].wall })
            XCTAssertEqual(result.status, 0, result.stderr)
            let answers = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
            XCTAssertEqual(answers.count, indices.count)
            for (answer, i) in zip(answers, indices) {
                let e = expected[i]
                let instant = Date(timeIntervalSince1970: Double(Int64(e[0])!) / 1e6)
                XCTAssertEqual(answer["wall"] as? String, cases[i].wall)
                XCTAssertEqual(answer["instant"] as? String, ISO8601DateFormatter().string(from: instant), "\(cases[i])")
                XCTAssertEqual(answer["offset"] as? String, offsetText(Int(e[1])!), "\(cases[i])")
                XCTAssertEqual(answer["kind"] as? String, e[2], "\(cases[i])")
            }
        }
    }

    /// Issue 21: `--base-time @9223372036854.775807` trapped (`instant.microseconds + 1`). Any base time is
    /// now answered: inside `Instant.supportedRange` with its elapses (or `never`, past systemd's 2199),
    /// outside it with a usage error naming the range — for `calendar` and `timestamp` alike.
    func testCalendarAndTimestamp_takeAnyBaseTime_outOfRangeIsAnErrorNamingTheRange() throws {
        let range = "outside the supported range 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z"
        for base in ["@9223372036854.775807", "@9223372036854.775806", "@9223372036854", "@253402300800",
                     "10000-01-01T00:00:00Z", "@18446744073709551615"] {
            for zone in ["UTC", "Europe/Berlin"] {
                let calendar = try runProcess(Build.schedd, ["calendar", "--tz", zone, "--base-time", base, "daily", "*:*:*.000001"])
                XCTAssertEqual(calendar.status, 2, "\(base): \(calendar.stdout) \(calendar.stderr)")
                let parsed = calendar.stderr.contains(range) || calendar.stderr.contains("needs an RFC 3339 time")
                XCTAssertTrue(parsed && calendar.stderr.contains(base), calendar.stderr)
            }
            let timestamp = try runProcess(Build.schedd, ["timestamp", "--base-time", base, "+5min"])
            XCTAssertEqual(timestamp.status, 2, timestamp.stderr)
        }
        XCTAssertTrue(try runProcess(Build.schedd, ["calendar", "--base-time", "@9223372036854.775807", "daily"]).stderr
            .contains(range))
        for (base, next) in [("@253402300799.999999", [String]()), ("9999-12-31T23:59:59Z", []),
                             ("2199-12-31T23:59:58Z", ["2199-12-31T23:59:59Z"]), ("0001-01-01T00:00:00Z", []),
                             ("1970-01-01T00:00:00Z", ["1970-01-01T00:00:01Z"])] {
            let json = try runProcess(Build.schedd, ["calendar", "--json", "--tz", "UTC", "--base-time", base, "*:*:*"])
            XCTAssertEqual(json.status, 0, json.stderr)
            let value = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            XCTAssertEqual(value?.first?["next"] as? [String], next, base)
        }
    }

    /// A wall time of the years 1–9999 whose instant is outside the supported range (east of UTC on
    /// 0001-01-01, west of it on 9999-12-31) is rejected naming the range; the rest of the line goes on.
    func testResolve_instantOutsideTheSupportedRange_isRejectedNamingIt() throws {
        for (zone, wall) in [("Asia/Tokyo", "0001-01-01T00:00:00"), ("America/Adak", "9999-12-31T23:59:59")] {
            let result = try runProcess(Build.schedd, ["resolve", "--json", "--tz", zone, wall, "2026-03-08T02:30:00"])
            XCTAssertEqual(result.status, 1, result.stderr)
            let value = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            XCTAssertEqual(value.count, 2)
            XCTAssertTrue((value[0]["error"] as? String)?.contains("outside the supported range") == true, "\(value)")
            XCTAssertNotNil(value[1]["instant"] as? String)
        }
        let edge = try runProcess(Build.schedd, ["resolve", "--json", "--tz", "UTC", "9999-12-31T23:59:59", "0001-01-01T00:00:00"])
        XCTAssertEqual(edge.status, 0, edge.stderr)
    }

    func testResolve_rejectsOffsetsAndGarbage() throws {
        XCTAssertEqual(try runProcess(Build.schedd, ["resolve", "--tz", "UTC", "2026-03-08T02:30Z"]).status, 1)
        XCTAssertEqual(try runProcess(Build.schedd, ["resolve", "--tz", "UTC", "yesterday"]).status, 1)
        XCTAssertEqual(try runProcess(Build.schedd, ["resolve", "--tz", "UTC"]).status, 2)
    }
}

/// `±HH:MM` of an offset in seconds.
private func offsetText(_ seconds: Int) -> String {
    let a = abs(seconds)
    var text = (seconds < 0 ? "-" : "+") + twoDigit(a / 3600) + ":" + twoDigit(a / 60 % 60)
    if a % 60 != 0 { text += ":" + twoDigit(a % 60) }
    return text
}

/// The first `n` elapses `systemd-analyze calendar` prints, as RFC 3339 UTC.
func systemdUTCElapses(_ spec: String, zone: String, base: String, n: Int) throws -> [String] {
    let result = try runProcess("/usr/bin/systemd-analyze", ["calendar", "--iterations=\(n)", "--base-time=\(base)", spec],
                                environment: ["TZ": zone])
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss 'UTC'"
    return result.lines.filter { $0.contains("(in UTC):") }.compactMap {
        formatter.date(from: $0.components(separatedBy: "(in UTC): ").last ?? "").map { ISO8601DateFormatter().string(from: $0) }
    }
}

