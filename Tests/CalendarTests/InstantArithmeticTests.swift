import XCTest
@testable import SchedCalendar

/// Instant arithmetic never traps (CONTRACT §9, "No input crashes it"): construction and adding
/// saturate at the ends of `Int64`, the checked forms report overflow, and conversions to wall time
/// work for every representable instant.
final class InstantArithmeticTests: XCTestCase {
    func testInitSeconds_saturatesInsteadOfWrapping() {
        XCTAssertEqual(Instant(seconds: 1_767_225_600).microseconds, 1_767_225_600_000_000)  // 2026-01-01T00:00:00Z
        XCTAssertEqual(Instant(seconds: Int64.max).microseconds, Int64.max)
        XCTAssertEqual(Instant(seconds: Int64.min).microseconds, Int64.min)
        // 2^62 s used to wrap to a negative instant.
        XCTAssertEqual(Instant(seconds: 4_611_686_018_427_387_904).microseconds, Int64.max)
        XCTAssertEqual(Instant(seconds: 9_223_372_036_854).microseconds, 9_223_372_036_854_000_000)
        XCTAssertEqual(Instant(seconds: 9_223_372_036_855).microseconds, Int64.max)
    }

    func testInitExactlySeconds_reportsOverflow() {
        XCTAssertEqual(Instant(exactlySeconds: -1)?.microseconds, -1_000_000)
        XCTAssertEqual(Instant(exactlySeconds: 9_223_372_036_854)?.microseconds, 9_223_372_036_854_000_000)
        XCTAssertNil(Instant(exactlySeconds: 9_223_372_036_855))
        XCTAssertNil(Instant(exactlySeconds: Int64.min))
    }

    func testAdding_saturates_checkedAddingReportsOverflow() {
        let huge = Instant(microseconds: 4_611_686_018_427_387_903)  // 2^62 − 1 µs, the ClockAdvance of issue 9
        XCTAssertEqual(huge.adding(microseconds: 4_611_686_018_427_387_903).microseconds, 9_223_372_036_854_775_806)
        XCTAssertEqual(huge.adding(microseconds: 4_611_686_018_427_387_903).adding(microseconds: 4_611_686_018_427_387_903),
                       Instant(microseconds: Int64.max))
        XCTAssertEqual(Instant(microseconds: Int64.min + 5).adding(microseconds: -10), Instant(microseconds: Int64.min))
        XCTAssertEqual(Instant(seconds: 0).adding(seconds: Int64.max), Instant(microseconds: Int64.max))
        XCTAssertEqual(Instant(seconds: 0).adding(seconds: Int64.min), Instant(microseconds: Int64.min))
        XCTAssertEqual(Instant(seconds: 10).adding(seconds: -3), Instant(seconds: 7))
        XCTAssertNil(Instant(microseconds: Int64.max).checkedAdding(microseconds: 1))
        XCTAssertNil(Instant(microseconds: Int64.min).checkedAdding(microseconds: -1))
        XCTAssertEqual(Instant(microseconds: 1).checkedAdding(microseconds: -2), Instant(microseconds: -1))
    }

    func testSupportedRange_isYearsOneThrough9999() {
        XCTAssertEqual(Instant.supportedRange.lowerBound.rfc3339, "0001-01-01T00:00:00Z")
        XCTAssertEqual(Instant.supportedRange.upperBound.rfc3339, "9999-12-31T23:59:59.999999Z")
        XCTAssertEqual(Instant.supportedRangeDescription, "0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z")
        XCTAssertTrue(Instant(seconds: 0).isSupported)
        XCTAssertFalse(Instant.supportedRange.upperBound.adding(microseconds: 1).isSupported)
        XCTAssertFalse(Instant.supportedRange.lowerBound.adding(microseconds: -1).isSupported)
        // The round trip through wall time at both ends.
        let end = CivilDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, microsecond: 999_999)
        XCTAssertEqual(end.instant(offsetSeconds: 0), Instant.supportedRange.upperBound)
        XCTAssertEqual(CivilDateTime(year: 1, month: 1, day: 1).instant(offsetSeconds: 0), Instant.supportedRange.lowerBound)
    }

    func testWallTimeOfTheExtremes_doesNotTrap() {
        // Both ends of Int64 convert (they used to overflow when the offset was added in microseconds).
        let max = CivilDateTime(instant: Instant(microseconds: Int64.max), offsetSeconds: 93_599)
        XCTAssertEqual(max.year, 294_247)
        let min = CivilDateTime(instant: Instant(microseconds: Int64.min), offsetSeconds: -89_999)
        XCTAssertEqual(min.year, -290_308)
        XCTAssertEqual(Instant(microseconds: Int64.max).rfc3339, "294247-01-10T04:00:54.775807Z")
        XCTAssertEqual(CivilDateTime(instant: Instant(microseconds: -1), offsetSeconds: 0).microsecond, 999_999)
        // Far outside 1–9999 a wall time saturates instead of trapping.
        XCTAssertEqual(CivilDateTime(year: 300_000, month: 1, day: 1).instant(offsetSeconds: 0), Instant(microseconds: Int64.max))
    }

    /// The text of `iso8601`, written byte by byte since the Push reply path was profiled: zero-padded
    /// fields, a negative year signed, a year past 9999 unpadded, the fraction without trailing zeros,
    /// `Z` or the offset (its seconds only when not zero).
    func testISO8601Text() {
        func text(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, _ us: Int, _ off: Int?, z: Bool = false) -> String {
            CivilDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s, microsecond: us)
                .iso8601(withOffset: off, utcDesignator: z)
        }
        XCTAssertEqual(text(2026, 3, 8, 5, 1, 0, 0, 0, z: true), "2026-03-08T05:01:00Z")
        XCTAssertEqual(text(2026, 3, 8, 5, 1, 0, 0, 0), "2026-03-08T05:01:00+00:00")
        XCTAssertEqual(text(2026, 12, 31, 23, 59, 59, 500_000, nil), "2026-12-31T23:59:59.5")
        XCTAssertEqual(text(1, 1, 1, 0, 0, 0, 1, 3_600), "0001-01-01T00:00:00.000001+01:00")
        XCTAssertEqual(text(987, 10, 9, 8, 7, 6, 120_300, -34_262), "0987-10-09T08:07:06.1203-09:31:02")
        XCTAssertEqual(text(-5, 1, 2, 3, 4, 5, 0, -60, z: true), "-0005-01-02T03:04:05-00:01")
        XCTAssertEqual(text(12_345, 6, 7, 8, 9, 10, 999_999, 93_599), "12345-06-07T08:09:10.999999+25:59:59")
    }
}
