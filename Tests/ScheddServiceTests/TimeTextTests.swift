import SchedCalendar
import Scheduler
import ScheddService
import XCTest

/// ScheddService's time arguments (TimeText.swift): `parseTimeText` reads the RFC 3339 forms the
/// methods take, `instant(fromTimeText:in:)` resolves a wall time in a zone the way CONTRACT §2 says
/// (a gap takes the offset before it, a fold its first occurrence). Zones are POSIX TZ rules, so the
/// test reads no zone file.
final class TimeTextTests: XCTestCase {
    /// US Eastern: 2026-03-08 02:00 → 03:00 (gap), 2026-11-01 02:00 → 01:00 (fold).
    private let eastern = try! TimeZoneRules(posixTZ: "EST5EDT,M3.2.0,M11.1.0")

    func testParseTimeText_readsFloatingAndFixedForms() {
        XCTAssertEqual(parseTimeText("2026-03-08T02:30"), .floating(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2,
                                                                                  minute: 30), zone: nil))
        XCTAssertEqual(parseTimeText("2026-03-08 02:30:15"),
                       .floating(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 15), zone: nil))
        XCTAssertEqual(parseTimeText("2026-03-08T07:30:00Z"), .fixed(Instant(seconds: 1_772_955_000), offsetSeconds: 0))
        XCTAssertEqual(parseTimeText("2026-03-08T02:30:00-05:00"),
                       .fixed(Instant(seconds: 1_772_955_000), offsetSeconds: -18000))
        XCTAssertEqual(parseTimeText("2026-03-08T07:30:00.25Z"),
                       .fixed(Instant(microseconds: 1_772_955_000_250_000), offsetSeconds: 0))
        for bad in ["", "2026-02-30T10:00", "2026-03-08T24:00", "2026-3-8T10:00", "2026-03-08T10:00Zx", "tomorrow"] {
            XCTAssertNil(parseTimeText(bad), bad)
        }
    }

    func testAWallTime_isResolvedInTheZone() {
        XCTAssertEqual(instant(fromTimeText: "2026-07-01T12:00", in: eastern), Instant(seconds: 1_782_921_600), "EDT, UTC−4")
        XCTAssertEqual(instant(fromTimeText: "2026-07-01T12:00", in: .utc), Instant(seconds: 1_782_907_200))
    }

    func testAWallTimeInTheGap_takesTheOffsetBeforeIt() {
        // 02:30 does not exist on 2026-03-08 in New York; with EST (−5) it is 07:30Z.
        XCTAssertEqual(instant(fromTimeText: "2026-03-08T02:30", in: eastern), Instant(seconds: 1_772_955_000))
    }

    func testAWallTimeInTheFold_isItsFirstOccurrence() {
        // 01:30 happens twice on 2026-11-01: first in EDT (05:30Z), an hour later in EST (06:30Z).
        XCTAssertEqual(instant(fromTimeText: "2026-11-01T01:30", in: eastern), Instant(seconds: 1_793_511_000))
        XCTAssertNotEqual(instant(fromTimeText: "2026-11-01T01:30", in: eastern), Instant(seconds: 1_793_514_600))
    }

    func testAnOffsetOrZ_wins_overTheZone() {
        XCTAssertEqual(instant(fromTimeText: "2026-03-08T02:30:00-05:00", in: .utc), Instant(seconds: 1_772_955_000))
        XCTAssertEqual(instant(fromTimeText: "2026-03-08T07:30:00Z", in: eastern), Instant(seconds: 1_772_955_000))
    }

    func testMalformedText_isNil_inAnyZone() {
        for bad in ["", "2026-02-30T10:00", "2026-03-08T24:00", "now", "2026-03-08T10:00+25:00"] {
            XCTAssertNil(instant(fromTimeText: bad, in: eastern), bad)
        }
    }
}
