import Foundation
import XCTest

/// CONTRACT §2 through the real daemon and CLI: gaps, folds, device-zone changes, calendars
/// across DST (checked against systemd-analyze), time passing with the fake clock.
final class ContractTimeTests: XCTestCase {
    func testGap_wallTimeThatDoesNotExist_firesOnceWithTheOffsetBeforeTheGap() throws {
        // 2026-03-08 02:30 does not exist in New York (02:00 EST → 03:00 EDT): 02:30 EST = 07:30Z.
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z", zone: "America/New_York")
        defer { h.tearDown() }
        let answer = try h.push(localPush(id: "gap", at: "2026-03-08T02:30"))
        XCTAssertEqual(answer.first?["next"] as? String, "2026-03-08T07:30:00Z")
        try h.advance("1d")
        XCTAssertEqual(h.shown.map { $0["due"] as? String }, ["2026-03-08T07:30:00Z"])
    }

    func testFold_wallTimeThatOccursTwice_firesOnceAtTheFirstOccurrence() throws {
        // 2026-11-01 01:30 occurs at 05:30Z (EDT) and 06:30Z (EST) in New York: the first counts.
        let h = try ScheddHarness(fakeClock: "2026-11-01T04:00:00Z", zone: "America/New_York")
        defer { h.tearDown() }
        let answer = try h.push(localPush(id: "fold", at: "2026-11-01T01:30"))
        XCTAssertEqual(answer.first?["next"] as? String, "2026-11-01T05:30:00Z")
        try h.advance("1h 45min")
        XCTAssertEqual(h.shown.count, 1)
        try h.advance("1d")
        XCTAssertEqual(h.shown.map { $0["due"] as? String }, ["2026-11-01T05:30:00Z"])
    }

    func testDeviceZoneChange_floatingKeepsItsWallTime_fixedAndPinnedKeepTheirInstant() throws {
        let h = try ScheddHarness(fakeClock: "2026-05-31T12:00:00Z", zone: "UTC")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "floating", at: "2026-06-01T09:00"))
        _ = try h.push(localPush(id: "fixed", at: "2026-06-01T09:00:00Z"))
        _ = try h.push(localPush(id: "pinned", at: "2026-06-01T09:00", extra: "\"timeZone\":\"Asia/Tokyo\""))
        var next = Dictionary(uniqueKeysWithValues: try h.list().map { ($0["id"] as! String, $0["next"] as! String) })
        XCTAssertEqual(next, ["floating": "2026-06-01T09:00:00Z", "fixed": "2026-06-01T09:00:00Z",
                              "pinned": "2026-06-01T00:00:00Z"])
        _ = try h.json(["clock", "zone", "Europe/Berlin"])
        next = Dictionary(uniqueKeysWithValues: try h.list().map { ($0["id"] as! String, $0["next"] as! String) })
        XCTAssertEqual(next, ["floating": "2026-06-01T07:00:00Z", "fixed": "2026-06-01T09:00:00Z",
                              "pinned": "2026-06-01T00:00:00Z"])
        try h.advance("1d")
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["pinned", "floating", "fixed"])
        XCTAssertEqual(h.shown.map { $0["due"] as? String },
                       ["2026-06-01T00:00:00Z", "2026-06-01T07:00:00Z", "2026-06-01T09:00:00Z"])
    }

    func testCalendarAcrossDST_firesExactlyWhenSystemdWould() throws {
        // Europe/Berlin springs forward on 2026-03-29 (02:00 → 03:00) and falls back on 2026-10-25.
        for (start, spec, span) in [("2026-03-27T00:00:00Z", "*-*-* 02:30", "4d"),
                                    ("2026-10-23T00:00:00Z", "*-*-* 02:30", "4d"),
                                    ("2026-10-24T22:00:00Z", "*:0/30", "6h")] {
            let h = try ScheddHarness(fakeClock: start, zone: "Europe/Berlin")
            defer { h.tearDown() }
            let expected = try systemdElapses(spec: spec, zone: "Europe/Berlin", after: start, span: span)
            XCTAssertFalse(expected.isEmpty)
            let answer = try h.push(localPush(id: "cal", calendar: spec))
            XCTAssertEqual(answer.first?["next"] as? String, expected.first, spec)
            try h.advance(span)
            XCTAssertEqual(h.shown.compactMap { $0["due"] as? String }, expected, "\(spec) from \(start)")
            XCTAssertTrue(h.shown.allSatisfy { ($0["due"] as? String) == ($0["at"] as? String) })
        }
    }

    func testClockAdvance_deliversEverythingDueInDueOrder_beforeAnswering() throws {
        let h = try ScheddHarness(fakeClock: "2026-01-01T00:00:00Z")
        defer { h.tearDown() }
        let lines = (0..<50).map { i in
            localPush(id: "bulk:\(i)", at: "2026-01-01T\(twoDigit((49 - i) / 6)):\(twoDigit((49 - i) % 6 * 10)):00Z")
        }.joined(separator: "\n")
        let result = try h.cli(["push", "-", "--json"], stdin: lines)
        XCTAssertEqual(result.status, 0, result.stderr)
        try h.advance("1d")
        let dues = h.shown.compactMap { $0["due"] as? String }
        XCTAssertEqual(dues.count, 50)
        XCTAssertEqual(dues, dues.sorted())
        XCTAssertEqual(try h.history(limit: 1000).filter { $0["event"] as? String == "fired" }.count, 50)
    }

    func testClockSet_isAWallClockStep_lateWithinGraceShown_beyondMissed_backFiresNothingTwice() throws {
        let h = try ScheddHarness(fakeClock: "2026-05-01T08:00:00Z")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "a", at: "2026-05-01T09:00:00Z", extra: "\"graceSeconds\":3600"))
        _ = try h.push(localPush(id: "b", at: "2026-05-01T09:00:00Z", extra: "\"graceSeconds\":60"))
        _ = try h.json(["clock", "set", "2026-05-01T10:00:00Z"])  // a is exactly 3600 s late: still shown
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["a"])
        XCTAssertEqual(h.shown.first?["at"] as? String, "2026-05-01T10:00:00Z")
        let history = try h.history()
        XCTAssertEqual(history.first { $0["id"] as? String == "a" }?["late"] as? Double, 3600)
        XCTAssertEqual(history.first { $0["id"] as? String == "b" }?["event"] as? String, "missed")
        _ = try h.json(["clock", "set", "2026-05-01T07:00:00Z"])
        _ = try h.json(["clock", "set", "2026-05-01T12:00:00Z"])
        XCTAssertEqual(h.shown.count, 1)
    }
}

func twoDigit(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

/// The elapses `systemd-analyze calendar` lists for `spec` in `zone` after `after` (RFC 3339 Z)
/// up to `after + span`, as RFC 3339 UTC strings.
func systemdElapses(spec: String, zone: String, after: String, span: String) throws -> [String] {
    let base = after.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    let result = try runProcess("/usr/bin/systemd-analyze", ["calendar", "--iterations=400", "--base-time=\(base)", spec],
                                environment: ["TZ": zone])
    guard result.status == 0 else { throw TestSetupError("systemd-analyze: \(result.stderr)") }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss 'UTC'"
    let iso = ISO8601DateFormatter()
    guard let start = iso.date(from: after), let spanSeconds = spanSecondsOf(span) else { return [] }
    let end = start.addingTimeInterval(spanSeconds)
    return result.lines.compactMap { line -> String? in
        guard line.contains("(in UTC):") else { return nil }
        let text = line.components(separatedBy: "(in UTC): ").last ?? ""
        guard let date = formatter.date(from: text), date <= end else { return nil }
        return iso.string(from: date)
    }
}

private func spanSecondsOf(_ span: String) -> Double? {
    if span.hasSuffix("d"), let d = Double(span.dropLast()) { return d * 86400 }
    if span.hasSuffix("h"), let h = Double(span.dropLast()) { return h * 3600 }
    return nil
}
