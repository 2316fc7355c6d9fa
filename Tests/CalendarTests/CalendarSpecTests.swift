import SystemZones
import SchedCalendar
import XCTest

/// Table tests in the style of systemd's `src/test/test-calendarspec.c`: normalization (with the
/// round trip parse(normalized).normalized == normalized), inputs that must fail, and next elapses.
final class CalendarSpecTests: XCTestCase {
    private func assertNormalized(_ input: String, _ expected: String, file: StaticString = #filePath,
                                  line: UInt = #line) {
        do {
            let spec = try CalendarSpec(parsing: input, zones: ZoneDatabase.shared)
            XCTAssertEqual(spec.normalized, expected, "input '\(input)'", file: file, line: line)
            let again = try CalendarSpec(parsing: spec.normalized, zones: ZoneDatabase.shared)
            XCTAssertEqual(again.normalized, spec.normalized, "round trip of '\(input)'", file: file, line: line)
        } catch {
            XCTFail("'\(input)' rejected: \(error)", file: file, line: line)
        }
    }

    func testNormalization_matchesSystemd() {
        let cases: [(String, String)] = [
            ("Sat,Thu,Mon-Wed,Sat-Sun", "Mon..Thu,Sat,Sun *-*-* 00:00:00"),
            ("Sat,Thu,Mon..Wed,Sat..Sun", "Mon..Thu,Sat,Sun *-*-* 00:00:00"),
            ("Mon,Sun 12-*-* 2,1:23", "Mon,Sun 2012-*-* 01,02:23:00"),
            ("Wed *-1", "Wed *-*-01 00:00:00"),
            ("Wed-Wed,Wed *-1", "Wed *-*-01 00:00:00"),
            ("Wed..Wed,Wed *-1", "Wed *-*-01 00:00:00"),
            ("Wed, 17:48", "Wed *-*-* 17:48:00"),
            ("Wednesday,", "Wed *-*-* 00:00:00"),
            ("Wed-Sat,Tue 12-10-15 1:2:3", "Tue..Sat 2012-10-15 01:02:03"),
            ("*-*-7 0:0:0", "*-*-07 00:00:00"),
            ("10-15", "*-10-15 00:00:00"),
            ("monday *-12-* 17:00", "Mon *-12-* 17:00:00"),
            ("Mon,Fri *-*-3,1,2 *:30:45", "Mon,Fri *-*-01,02,03 *:30:45"),
            ("12,14,13,12:20,10,30", "*-*-* 12,13,14:10,20,30:00"),
            ("mon,fri *-1/2-1,3 *:30:45", "Mon,Fri *-01/2-01,03 *:30:45"),
            ("03-05 08:05:40", "*-03-05 08:05:40"),
            ("08:05:40", "*-*-* 08:05:40"),
            ("05:40", "*-*-* 05:40:00"),
            ("Sat,Sun 12-05 08:05:40", "Sat,Sun *-12-05 08:05:40"),
            ("2003-03-05 05:40", "2003-03-05 05:40:00"),
            ("2003-03-05", "2003-03-05 00:00:00"),
            ("hourly", "*-*-* *:00:00"),
            ("daily", "*-*-* 00:00:00"),
            ("DAILY", "*-*-* 00:00:00"),
            ("monthly", "*-*-01 00:00:00"),
            ("weekly", "Mon *-*-* 00:00:00"),
            ("minutely", "*-*-* *:*:00"),
            ("quarterly", "*-01,04,07,10-01 00:00:00"),
            ("semi-annually", "*-01,07-01 00:00:00"),
            ("semiannually", "*-01,07-01 00:00:00"),
            ("annually", "*-01-01 00:00:00"),
            ("yearly", "*-01-01 00:00:00"),
            ("*:2/3", "*-*-* *:02/3:00"),
            ("2015-10-25 01:00:00 uTc", "2015-10-25 01:00:00 UTC"),
            ("2016-03-27 03:17:00.4200005", "2016-03-27 03:17:00.420001"),
            ("2016-03-27 03:17:00/0.42", "2016-03-27 03:17:00/0.420000"),
            ("*:*:01.1234567", "*-*-* *:*:01.123457"),
            ("9..11,13:00,30", "*-*-* 09..11,13:00,30:00"),
            ("1..3-1..3 1..3:1..3", "*-01..03-01..03 01..03:01..03:00"),
            ("00:00:1.125..2.125", "*-*-* 00:00:01.125000..02.125000"),
            ("00:00:1.0..3.8", "*-*-* 00:00:01..03"),
            ("*:*:1.5..3", "*-*-* *:*:01.500000..02.500000"),
            ("00:00:01/2,02..03", "*-*-* 00:00:01/2,02..03"),
            ("*:4,30:0..3", "*-*-* *:04,30:00..03"),
            ("*:4,30:0/1", "*-*-* *:04,30:*"),
            ("*:4,30:0/1,3,5", "*-*-* *:04,30:*"),
            ("*-*~1 Utc", "*-*~01 00:00:00 UTC"),
            ("*-*~05,3 ", "*-*~03,05 00:00:00"),
            ("*-*~* 00:00:00", "*-*-* 00:00:00"),
            ("Monday", "Mon *-*-* 00:00:00"),
            ("Monday *-*-*", "Mon *-*-* 00:00:00"),
            ("*-*-*", "*-*-* 00:00:00"),
            ("*:*:*", "*-*-* *:*:*"),
            ("*:*", "*-*-* *:*:00"),
            ("12:*", "*-*-* 12:*:00"),
            ("*:30", "*-*-* *:30:00"),
            ("93..00-*-*", "1993..2000-*-* 00:00:00"),
            ("00..07-*-*", "2000..2007-*-* 00:00:00"),
            ("69-1-1", "2069-01-01 00:00:00"),
            ("*:20..39/5", "*-*-* *:20..35/5:00"),
            ("00:00:20..40/1", "*-*-* 00:00:20..40"),
            ("*~03/1,03..05", "*-*~03/1,03..05 00:00:00"),
            ("@1493187147", "2017-04-26 06:12:27 UTC"),
            ("@1493187147 UTC", "2017-04-26 06:12:27 UTC"),
            ("@0", "1970-01-01 00:00:00 UTC"),
            ("Mon @1700000000", "Mon 2023-11-14 22:13:20 UTC"),
            ("*:05..05", "*-*-* *:05:00"),
            ("*:05..10/6", "*-*-* *:05:00"),
            ("1..2/5:00", "*-*-* 01:00:00"),
            ("Sat..Sun", "Sat,Sun *-*-* 00:00:00"),
            ("Mon,Wed..Sun", "Mon,Wed..Sun *-*-* 00:00:00"),
            ("Mon..Sun 1:00", "*-*-* 01:00:00"),
            ("*:*:0/0.5", "*-*-* *:*:00/0.500000"),
        ]
        for (input, expected) in cases { assertNormalized(input, expected) }
    }

    func testInvalidExpressions_areRejectedWithPosition() {
        let mustFail = [
            "test", " utc", "    ", "", "7", "121212:1:2", "2000-03-05.23 00:00:00", "2000-03-05 00:00.1:00",
            "00:00:00/0.00000001", "00:00:00.0..00.9", "2016~11-22", "*-*~5/5", "Monday.. 12:00", "Monday..",
            "-00:+00/-5", "00:+00/-5", "2016- 11- 24 12: 30: 00", "*~29", "*~16..31", "12..1/2-*", "20/4:00",
            "00:00/60", "00:00:2300", "00:00:18446744073709551615", "@88588582097858858", "*:4,30:*,5",
            "*:4,30:5,*", "*:4,30:*\n", "*/2:00", "*:58/2", "2024-01-15T12:00", "*:*:*.5", "*-*-* 24:00",
            "2200-01-01", "Fri..Mon", "Mon..Fro 09:00", "Mond", "daily ", "UTC", "1969-12-31",
            "*-*-* 00:00:60", "*-13-01", "*-*-32", "Mon-", "*:*:1.", "1,2,", "daily Not/AZone",
        ]
        for input in mustFail {
            XCTAssertThrowsError(try CalendarSpec(parsing: input, zones: ZoneDatabase.shared), "'\(input)' must be rejected") { error in
                let message = (error as? CalendarError)?.message ?? ""
                XCTAssertTrue(message.hasPrefix("calendar: '\(input)': "), message)
            }
        }
    }

    func testErrorMessage_namesTheProblemAndOffset() {
        XCTAssertThrowsError(try CalendarSpec(parsing: "Mon..Fro 09:00", zones: ZoneDatabase.shared)) { error in
            XCTAssertEqual("\(error)", "calendar: 'Mon..Fro 09:00': unknown weekday 'Fro' at offset 5")
        }
        XCTAssertThrowsError(try CalendarSpec(parsing: "*-*-* 12:6x", zones: ZoneDatabase.shared)) { error in
            XCTAssertTrue("\(error)".hasSuffix("at offset 10"), "\(error)")
        }
        XCTAssertThrowsError(try CalendarSpec(parsing: "*-*-* 25:00", zones: ZoneDatabase.shared)) { error in
            XCTAssertEqual("\(error)", "calendar: '*-*-* 25:00': hour 25 is out of range 0…23 at offset 6")
        }
    }

    func testZoneSuffix() throws {
        XCTAssertEqual(try CalendarSpec(parsing: "daily UTC", zones: ZoneDatabase.shared).timeZoneName, "UTC")
        XCTAssertNil(try CalendarSpec(parsing: "daily", zones: ZoneDatabase.shared).timeZoneName)
        XCTAssertEqual(try CalendarSpec(parsing: "daily utc", zones: ZoneDatabase.shared).normalized, "*-*-* 00:00:00 UTC")
        guard (try? ZoneDatabase.shared.zone(named: "Europe/Berlin")) != nil else {
            throw missingReference("zoneinfo not available yet")
        }
        XCTAssertEqual(try CalendarSpec(parsing: "@5 Etc/UTC", zones: ZoneDatabase.shared).normalized, "1970-01-01 00:00:05 UTC")
        XCTAssertEqual(try CalendarSpec(parsing: "weekly Pacific/Auckland", zones: ZoneDatabase.shared).normalized,
                       "Mon *-*-* 00:00:00 Pacific/Auckland")
        XCTAssertEqual(try CalendarSpec(parsing: "daily Etc/UTC", zones: ZoneDatabase.shared).timeZoneName, "Etc/UTC")
    }

    private func assertNext(_ spec: String, zone: String = "UTC", after: Int64, _ expected: Int64?,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let rules: TimeZoneRules
        do { rules = try ZoneDatabase.shared.zone(named: zone) } catch {
            throw missingReference("zone \(zone) not available: \(error)")
        }
        let parsed = try CalendarSpec(parsing: spec, zones: ZoneDatabase.shared)
        let next = parsed.nextElapse(after: Instant(microseconds: after), in: rules)
        XCTAssertEqual(next?.microseconds, expected, "\(spec) in \(zone) after \(after)", file: file, line: line)
    }

    func testNextElapse_utcTable() throws {
        try assertNext("2016-03-27 03:17:00", after: 12345, 1_459_048_620_000_000)        // 2016-03-27T03:17Z
        try assertNext("2016-03-27 03:17:00 UTC", after: 12345, 1_459_048_620_000_000)
        try assertNext("2016-03-27 03:17:00.420000001 UTC", after: 12345, 1_459_048_620_420_000)
        try assertNext("2016-03-27 03:17:00.4200005 UTC", after: 12345, 1_459_048_620_420_001)
        try assertNext("*-04-31", after: 12345, nil)                                      // never
        try assertNext("2016-02~01 UTC", after: 12345, 1_456_704_000_000_000)             // 2016-02-29
        try assertNext("Mon 2017-05~01..07 UTC", after: 12345, 1_496_016_000_000_000)     // 2017-05-29
        try assertNext("Mon 2017-05~07/1 UTC", after: 12345, 1_496_016_000_000_000)
        try assertNext("*-*-01/5 04:00:00 UTC", after: 1_646_010_000_000_000, 1_646_107_200_000_000)
        try assertNext("*-01/7-01 04:00:00 UTC", after: 1_664_607_600_000_000, 1_672_545_600_000_000)
        try assertNext("2017-08-06 9,11,13,15,17:00 UTC", after: 1_502_029_800_000_000, 1_502_031_600_000_000)
        try assertNext("2017-08-06 9..17/2:00 UTC", after: 1_502_029_800_000_000, 1_502_031_600_000_000)
        try assertNext("2016-12-* 3..21/6:00 UTC", after: 1_482_613_200_000_001, 1_482_634_800_000_000)
        try assertNext("*:*:0/0.5", after: 1_700_000_000_000_000, 1_700_000_000_500_000)  // 2023-11-14T22:13:20.5Z
        try assertNext("@1700000000", after: 1_600_000_000_000_000, 1_700_000_000_000_000)
        try assertNext("@1700000000", after: 1_700_000_000_000_000, nil)
        try assertNext("2199-12-31 23:59:59", after: 1_700_000_000_000_000, 7_258_118_399_000_000)
        try assertNext("Mon..Fri 08:00", after: 1_764_446_400_000_000, 1_764_576_000_000_000) // Sun → Mon 2025-12-01
    }

    func testNextElapse_zoneTable() throws {
        // The ones systemd's own test suite pins, with the DST cases CONTRACT §2 names.
        try assertNext("2016-03-27 03:17:00", zone: "Europe/Berlin", after: 12345, 1_459_041_420_000_000)
        try assertNext("Sun 16:00:00", zone: "Europe/Berlin", after: 1_456_041_600_123_456, 1_456_066_800_000_000)
        try assertNext("2017-09-24 03:30:00 Pacific/Auckland", after: 12345, 1_506_177_000_000_000)
        try assertNext("2017-09-24 02:30:00 Pacific/Auckland", after: 12345, nil)         // in the gap
        try assertNext("2017-04-02 02:30:00 Pacific/Auckland", after: 12345, 1_491_053_400_000_000) // fold: first
        try assertNext("2017-04-02 02:30:00 Pacific/Auckland", after: 1_491_053_400_000_000, nil)   // only once
        try assertNext("Sun *-*-* 01:00:00 Europe/Dublin", after: 1_616_412_478_000_000, 1_617_494_400_000_000)
        // 30-minute gap: 02:10 does not exist, 02:35 does.
        try assertNext("*:10,35", zone: "Australia/Lord_Howe", after: 1_759_591_740_000_000, 1_759_592_100_000_000)
        try assertNext("*:10,35", zone: "Australia/Lord_Howe", after: 1_759_592_100_000_000, 1_759_594_200_000_000)
        // Fold in New York 2026-11-01: 01:30 fires once, at EDT (05:30Z), then the next day.
        try assertNext("*-*-* 01:30", zone: "America/New_York", after: 1_793_509_200_000_000, 1_793_511_000_000_000)
        try assertNext("*-*-* 01:30", zone: "America/New_York", after: 1_793_511_000_000_000, 1_793_601_000_000_000)
        // Gap in New York 2026-03-08: 02:30 is skipped that day.
        try assertNext("*-*-* 02:30", zone: "America/New_York", after: 1_772_902_800_000_000, 1_773_037_800_000_000)
        // systemd 252 gives up here ("Infinite loop"); the right answers:
        try assertNext("*-1/10-6", zone: "America/New_York", after: 1_762_146_000_000_000, 1_762_405_200_000_000)
        try assertNext("*-1/10-6", zone: "America/New_York", after: 1_762_405_200_000_000, 1_767_675_600_000_000)
    }
}
