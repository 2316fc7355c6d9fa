import SeededRandomness
import XCTest
@testable import SchedCalendar

/// POSIX TZ strings (`TZ=EST5EDT,M3.2.0,M11.1.0`, TZif footers): grammar, errors, edge rules.
final class ZonePosixTZTests: XCTestCase {
    func offset(_ tz: String, _ seconds: Int64) throws -> ZoneOffset {
        try TimeZoneRules(posixTZ: tz).offset(at: Instant(seconds: seconds))
    }

    func testFixedOffsets_andAngleBracketNames() throws {
        XCTAssertEqual(try offset("<+0530>-5:30", 0), ZoneOffset(utcOffsetSeconds: 19800, isDST: false, abbreviation: "+0530"))
        XCTAssertEqual(try offset("ABC-5:45", 0).utcOffsetSeconds, 20700)
        XCTAssertEqual(try offset("<-03>3", 0), ZoneOffset(utcOffsetSeconds: -10800, isDST: false, abbreviation: "-03"))
        XCTAssertEqual(try offset("XYZ+1:02:03", 0).utcOffsetSeconds, -3723)
        XCTAssertEqual(try TimeZoneRules(posixTZ: "<+0530>-5:30").name, "<+0530>-5:30")
    }

    func testDSTWithoutRule_defaultsToUSRule_andOneHourAhead() throws {
        // 2026-03-08T07:00:00Z: second Sunday of March, 02:00 EST.
        XCTAssertEqual(try offset("EST5EDT", 1_772_953_199).utcOffsetSeconds, -18000)
        XCTAssertEqual(try offset("EST5EDT", 1_772_953_200), ZoneOffset(utcOffsetSeconds: -14400, isDST: true, abbreviation: "EDT"))
        // Explicit DST offset: 2 h ahead.
        XCTAssertEqual(try offset("AAA5BBB3,M3.2.0,M11.1.0", 1_772_953_200).utcOffsetSeconds, -10800)
    }

    func testAllYearDST_followsGlibc_standardTimeUntilTheYearsFirstChange() throws {
        // RFC 8536 §3.3.1 calls "EST5EDT4,0/0,J365/25" daylight time all year, but glibc (and so
        // `date`, systemd and schedd, CONTRACT §2) evaluates only the changes of the instant's UTC
        // year: DST starts at 05:00Z on 1 January, so 00:00Z–04:59:59Z read as EST. Checked with
        // `TZ='EST5EDT4,0/0,J365/25' date -d '2026-01-01 04:59:59 UTC'` → 23:59:59 EST.
        let z = try TimeZoneRules(posixTZ: "EST5EDT4,0/0,J365/25")
        for seconds: Int64 in [1_767_225_600, 1_767_243_599, 4_102_444_800] {  // 2026-01-01T00:00Z, …04:59:59Z, 2100-01-01T00:00Z
            XCTAssertEqual(z.offset(at: Instant(seconds: seconds)).abbreviation, "EST", "at \(Instant(seconds: seconds))")
        }
        for seconds: Int64 in [1_767_243_600, 1_782_864_000] {  // 2026-01-01T05:00Z, 2026-07-01T00:00Z
            XCTAssertEqual(z.offset(at: Instant(seconds: seconds)).abbreviation, "EDT", "at \(Instant(seconds: seconds))")
        }
    }

    func testJulianAndZeroBasedDays_leapYears() throws {
        // J60 is 1 March in every year; zero-based 59 is 29 February in leap years.
        let j = try TimeZoneRules(posixTZ: "XXX0YYY,J60/0,J300/0")
        XCTAssertEqual(j.offset(at: Instant(seconds: 951_868_799)).abbreviation, "XXX")  // 2000-02-29T23:59:59Z
        XCTAssertEqual(j.offset(at: Instant(seconds: 951_868_800)).abbreviation, "YYY")  // 2000-03-01T00:00:00Z
        let n = try TimeZoneRules(posixTZ: "XXX0YYY,59/0,300/0")
        XCTAssertEqual(n.offset(at: Instant(seconds: 951_782_399)).abbreviation, "XXX")  // 2000-02-28T23:59:59Z
        XCTAssertEqual(n.offset(at: Instant(seconds: 951_782_400)).abbreviation, "YYY")  // 2000-02-29T00:00:00Z
    }

    func testV3Times_negativeAndBeyond24Hours() throws {
        // Israel: DST starts Friday before the last Sunday of March at 02:00, written M3.4.4/26.
        // 2026: Thursday 26 March + 26 h = Friday 27 March 02:00 IST = 2026-03-27T00:00:00Z.
        XCTAssertEqual(try offset("IST-2IDT,M3.4.4/26,M10.5.0", 1_774_569_599).abbreviation, "IST")
        XCTAssertEqual(try offset("IST-2IDT,M3.4.4/26,M10.5.0", 1_774_569_600).abbreviation, "IDT")
        // Greenland: last Sunday of March at −02:00 local = Saturday 22:00 −03 = 2026-03-29T01:00:00Z.
        XCTAssertEqual(try offset("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", 1_774_745_999).abbreviation, "-03")
        XCTAssertEqual(try offset("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", 1_774_746_000).abbreviation, "-02")
    }

    func testSouthernHemisphere_andFarFuture() throws {
        let sydney = try TimeZoneRules(posixTZ: "AEST-10AEDT,M10.1.0,M4.1.0/3")
        XCTAssertEqual(sydney.offset(at: Instant(seconds: 1_767_225_600)).abbreviation, "AEDT")  // 2026-01-01
        XCTAssertEqual(sydney.offset(at: Instant(seconds: 1_782_864_000)).abbreviation, "AEST")  // 2026-07-01
        XCTAssertEqual(sydney.offset(at: Instant(seconds: 7_258_118_400)).abbreviation, "AEDT")  // 2200-01-01
    }

    func testInvalidStrings_nameTheProblemAndPosition() {
        let cases: [(String, String)] = [
            ("", "empty string"),
            ("E5", "expected a zone abbreviation of 3+ letters at position 0"),
            ("EST", "expected the hours of the standard time offset at position 3"),
            ("EST25", "hours of the standard time offset above 24 at position 3"),
            ("EST5EDT,M3.2", "expected '.' at position 12"),
            ("EST5EDT,M13.2.0,M11.1.0", "expected a month 1-12 at position 9"),
            ("EST5EDT,M3.6.0,M11.1.0", "expected a week 1-5"),
            ("EST5EDT,M3.2.7,M11.1.0", "expected a weekday 0-6"),
            ("EST5EDT,J0,J365", "expected a day 1-365 after J"),
            ("EST5EDT,M3.2.0/168,M11.1.0", "hours of the DST start time above 167"),
            ("EST5EDT,M3.2.0", "expected ','"),
            ("<AB>5", "zone abbreviation shorter than 3 characters"),
            ("<ABC5", "expected '>'"),
            ("EST5EDT,M3.2.0,M11.1.0x", "unexpected 'x'"),
            ("EST5:60", "expected minutes 00-59 in the standard time offset at position 5"),
        ]
        for (tz, expected) in cases {
            XCTAssertThrowsError(try TimeZoneRules(posixTZ: tz), tz) { error in
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix("invalid POSIX TZ string '\(tz)': "), text)
                XCTAssertTrue(text.contains(expected), "\(tz): \(text)")
            }
        }
    }

    func testRandomStrings_neverTrap() {
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("ESTDM0123456789.,/:+-<>J ".utf8)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...30, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let text = String(decoding: bytes, as: UTF8.self)
            // Whatever is accepted must be usable and follow the grammar's invariants.
            if let z = try? TimeZoneRules(posixTZ: text) {
                let o = z.offset(at: Instant(seconds: 1_772_953_200))
                XCTAssertGreaterThanOrEqual(o.abbreviation.utf8.count, 3, text)
                XCTAssertLessThanOrEqual(abs(o.utcOffsetSeconds), 24 * 3600 + 3599, text)
                _ = z.resolve(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30))
            }
        }
    }
}
