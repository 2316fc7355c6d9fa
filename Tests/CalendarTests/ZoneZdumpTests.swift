import SystemZones
import SeededRandomness
import XCTest
@testable import SchedCalendar

/// Exact offsets, DST flags and abbreviations against `zdump -v` (glibc's reading of the same files).
final class ZoneZdumpTests: XCTestCase {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    struct Line {
        var zone: String
        var instant: Instant
        var local: CivilDateTime
        var abbreviation: String
        var isDST: Bool
        var gmtoff: Int
    }

    /// Parses `Zone  Sun Mar 10 06:59:59 2024 UT = Sun Mar 10 01:59:59 2024 EST isdst=0 gmtoff=-18000`.
    static func parse(_ line: Substring) -> Line? {
        let t = line.split(separator: " ", omittingEmptySubsequences: true)
        guard t.count == 16, t[6] == "UT", t[7] == "=", t[14].hasPrefix("isdst="), t[15].hasPrefix("gmtoff="),
              let utc = civil(t[2], t[3], t[4], t[5]), let local = civil(t[9], t[10], t[11], t[12]),
              let gmtoff = Int(t[15].dropFirst(7)) else { return nil }
        return Line(zone: String(t[0]), instant: utc.instant(offsetSeconds: 0), local: local,
                    abbreviation: String(t[13]), isDST: t[14] != "isdst=0", gmtoff: gmtoff)
    }

    static func civil(_ mon: Substring, _ day: Substring, _ time: Substring, _ year: Substring) -> CivilDateTime? {
        let hms = time.split(separator: ":").compactMap { Int($0) }
        guard let m = months.firstIndex(of: String(mon)), let d = Int(day), let y = Int(year), hms.count == 3 else {
            return nil
        }
        return CivilDateTime(year: y, month: m + 1, day: d, hour: hms[0], minute: hms[1], second: hms[2])
    }

    /// Compares every transition zdump lists for `zones` in `range` with `rules(name)`; returns the count.
    func compare(_ zones: [String], range: String, rules: (String) throws -> TimeZoneRules) throws -> Int {
        let (status, output) = try runReference("/usr/bin/zdump", ["-v", "-c", range] + zones)
        XCTAssertEqual(status, 0)
        var compared = 0, perZone: [String: Int] = [:]
        for raw in output.split(separator: "\n") where !raw.hasSuffix("NULL") {
            guard let line = ZoneZdumpTests.parse(raw) else { XCTFail("unparsed zdump line: \(raw)"); continue }
            let zone = try rules(line.zone)
            let ours = zone.offset(at: line.instant)
            let expected = ZoneOffset(utcOffsetSeconds: line.gmtoff, isDST: line.isDST, abbreviation: line.abbreviation)
            XCTAssertEqual(ours, expected, "\(line.zone) at \(line.instant)")
            XCTAssertEqual(zone.localDateTime(at: line.instant), line.local, "\(line.zone) at \(line.instant)")
            compared += 1
            perZone[line.zone, default: 0] += 1
        }
        for z in zones { XCTAssertGreaterThan(perZone[z] ?? 0, 0, "zdump listed nothing for \(z)") }
        return compared
    }

    func testRealZones_1900to2200_matchZdump() throws {
        let db = ZoneDatabase(directory: "/usr/share/zoneinfo")
        let n = try compare(differentialZones, range: "1900,2200") { try db.zone(named: $0) }
        print("zdump comparison: \(n) transition instants in \(differentialZones.count) zones, 1900–2200")
        XCTAssertGreaterThan(n, 5_000)
    }

    func testPosixStrings_matchZdump() throws {
        let strings = [
            "EST5EDT,M3.2.0,M11.1.0", "IST-2IDT,M3.4.4/26,M10.5.0", "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
            "XXX3YYY,J60/2,300/-1", "AEST-10AEDT,M10.1.0,M4.1.0/3", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
            "NZST-12NZDT,M9.5.0,M4.1.0/3", "<-04>4<-03>,M9.1.6/24,M4.1.6/24", "GMT0IST,M10.5.0,M3.5.0/1",
            "<+0330>-3:30<+0430>,J79/24,J263/24", "XXX3YYY,59/2,300", "<STD>3:30<DST>3,323/12:30,231/-2:30",
            "AAA-4BBB-5,J32/-2:45,M6.5.3/26:15", "<STD>-6:30<DST>-7,76/5:30,M9.3.3/26:30",
        ]
        // Not compared: rules whose changes cross a UTC new year, such as all-year DST
        // (`CST6CDT,J1/0,J365/25`, RFC 8536 §3.3.1): glibc evaluates each UTC year
        // on its own and shows standard time for the first hours of every 1 January; see
        // `ZonePosixTZTests.testAllYearDST`.
        let n = try compare(strings, range: "1970,2100") { try TimeZoneRules(posixTZ: $0) }
        print("zdump comparison: \(n) transition instants in \(strings.count) POSIX TZ strings, 1970–2100")
        XCTAssertGreaterThan(n, 1_000)
    }

    /// Seeded random rules in every date form (`Jn`, `n`, `Mm.w.d`) with negative and > 24 h times.
    func testRandomPosixRules_matchZdump() throws {
        var rng = SplitMix64(seed: 8536)
        let rules = (0..<40).map { _ in randomPosixRule(pythonSafe: false, using: &rng) }
        let n = try compare(rules, range: "1970,2100") { try TimeZoneRules(posixTZ: $0) }
        print("zdump comparison: \(n) transition instants in \(rules.count) random POSIX TZ rules, 1970–2100")
    }

    /// `right/` files count leap seconds; mapped to POSIX time they must give the offsets of the
    /// plain zone at every transition (±1 s).
    func testRightZones_sameOffsetsAsPlainZones() throws {
        let db = ZoneDatabase(directory: "/usr/share/zoneinfo")
        guard db.isKnownZone("right/America/New_York") else { throw missingReference("no right/ zones installed") }
        for name in ["America/New_York", "Europe/Dublin", "Australia/Lord_Howe", "UTC"] {
            let plain = try db.zone(named: name), right = try db.zone(named: "right/" + name)
            // right/ data ends where the leap-second table expires (2026f: 2026-06-28, empty footer);
            // glibc reads it the same way, so only the span the table covers is compared.
            let end = right.transitions.last ?? 0
            for t in plain.transitions.dropFirst() where t > 0 && t < end - 1 {
                for d: Int64 in [-1, 0, 1] {
                    XCTAssertEqual(right.offset(at: Instant(seconds: t + d)), plain.offset(at: Instant(seconds: t + d)),
                                   "right/\(name) at \(Instant(seconds: t + d))")
                }
            }
        }
    }
}
