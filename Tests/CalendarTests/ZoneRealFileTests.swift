import SystemZones
import XCTest
@testable import SchedCalendar

/// Offsets and wall-time resolution in real zones with unusual rules (system zoneinfo).
final class ZoneRealFileTests: XCTestCase {
    let db = ZoneDatabase(directory: "/usr/share/zoneinfo")

    func wall(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> CivilDateTime {
        CivilDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    func check(_ zone: String, _ w: CivilDateTime, _ kind: WallTimeKind, _ epoch: Int64, _ offset: Int,
               later: Int64? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try db.zone(named: zone).resolve(w)
        XCTAssertEqual(r.kind, kind, "\(zone) \(w)", file: file, line: line)
        XCTAssertEqual(r.instant, Instant(seconds: epoch), "\(zone) \(w) → \(r.instant)", file: file, line: line)
        XCTAssertEqual(r.offsetSeconds, offset, "\(zone) \(w)", file: file, line: line)
        if let later {
            XCTAssertEqual(r.laterInstant, Instant(seconds: later), "\(zone) \(w)", file: file, line: line)
        } else {
            XCTAssertNil(r.laterInstant, "\(zone) \(w)", file: file, line: line)
        }
    }

    func testNewYork_gapUsesOffsetBeforeGap_foldFirstOccurrence() throws {
        // 2026-03-08 02:30 does not exist: EST applies → 07:30Z (03:30 EDT); later candidate 06:30Z.
        try check("America/New_York", wall(2026, 3, 8, 2, 30), .gap, 1_772_955_000, -18000, later: 1_772_951_400)
        // 2026-11-01 01:30 happens twice: first at EDT → 05:30Z, then 06:30Z.
        try check("America/New_York", wall(2026, 11, 1, 1, 30), .fold, 1_793_511_000, -14400, later: 1_793_514_600)
        try check("America/New_York", wall(2026, 7, 1, 12, 0), .unique, 1_782_921_600, -14400)
        let ny = try db.zone(named: "America/New_York")
        let c = ny.wallCandidates(wall(2026, 11, 1, 1, 30))
        XCTAssertEqual(c.first, Instant(seconds: 1_793_511_000))
        XCTAssertEqual(c.second, Instant(seconds: 1_793_514_600))
        let g = ny.wallCandidates(wall(2026, 3, 8, 2, 30))
        XCTAssertNil(g.first)
        XCTAssertNil(g.second)
    }

    func testDublin_negativeDST() throws {
        let dublin = try db.zone(named: "Europe/Dublin")
        // Winter (GMT) is the "DST" type in Dublin's negative-DST encoding; summer IST is standard.
        let winter = dublin.offset(at: Instant(seconds: 1_767_225_600))  // 2026-01-01T00:00Z
        XCTAssertEqual(winter.utcOffsetSeconds, 0)
        XCTAssertEqual(winter.abbreviation, "GMT")
        let summer = dublin.offset(at: Instant(seconds: 1_782_864_000))  // 2026-07-01T00:00Z
        XCTAssertEqual(summer.utcOffsetSeconds, 3600)
        XCTAssertEqual(summer.abbreviation, "IST")
        // 2026-03-29 01:30 does not exist (01:00 GMT → 02:00 IST): GMT applies → 01:30Z.
        try check("Europe/Dublin", wall(2026, 3, 29, 1, 30), .gap, 1_774_747_800, 0, later: 1_774_744_200)
        // 2026-10-25 01:30 happens twice: IST first → 00:30Z.
        try check("Europe/Dublin", wall(2026, 10, 25, 1, 30), .fold, 1_792_888_200, 3600, later: 1_792_891_800)
    }

    func testLordHowe_thirtyMinuteDST() throws {
        // DST ends 2026-04-05 02:00 +11 → 01:30 +1030: 01:45 happens twice.
        try check("Australia/Lord_Howe", wall(2026, 4, 5, 1, 45), .fold, 1_775_313_900, 39600, later: 1_775_315_700)
        // DST starts 2026-10-04 02:00 +1030 → 02:30 +11: 02:15 does not exist.
        try check("Australia/Lord_Howe", wall(2026, 10, 4, 2, 15), .gap, 1_791_042_300, 37800, later: 1_791_040_500)
    }

    func testApia_skippedDay2011() throws {
        // Samoa skipped 2011-12-30 entirely: from 2011-12-29 23:59:59 −10 to 2011-12-31 00:00 +14.
        try check("Pacific/Apia", wall(2011, 12, 30, 12, 0), .gap, 1_325_282_400, -36000, later: 1_325_196_000)
        try check("Pacific/Apia", wall(2011, 12, 29, 23, 59, 59), .unique, 1_325_239_199, -36000)
        try check("Pacific/Apia", wall(2011, 12, 31, 0, 0), .unique, 1_325_239_200, 50400)
    }

    func testHavanaAndSantiago_midnightTransitions() throws {
        // Havana springs forward at 00:00 → 01:00 (2026-03-08): 00:30 does not exist.
        try check("America/Havana", wall(2026, 3, 8, 0, 30), .gap, 1_772_947_800, -18000, later: 1_772_944_200)
        // ...and falls back at 01:00 → 00:00 (2026-11-01): 00:30 happens twice.
        try check("America/Havana", wall(2026, 11, 1, 0, 30), .fold, 1_793_507_400, -14400, later: 1_793_511_000)
        // Santiago: 2026-09-06 00:00 −04 → 01:00 −03, so 00:30 does not exist.
        try check("America/Santiago", wall(2026, 9, 6, 0, 30), .gap, 1_788_669_000, -14400, later: 1_788_665_400)
        // 2026-04-05 00:00 −03 → 2026-04-04 23:00 −04: 23:30 on the 4th happens twice.
        try check("America/Santiago", wall(2026, 4, 4, 23, 30), .fold, 1_775_356_200, -10800, later: 1_775_359_800)
    }

    func testKolkata_noDST_halfHourOffset() throws {
        let z = try db.zone(named: "Asia/Kolkata")
        XCTAssertEqual(z.offset(at: Instant(seconds: 1_782_864_000)).utcOffsetSeconds, 19800)
        XCTAssertEqual(z.offset(at: Instant(seconds: 1_782_864_000)).abbreviation, "IST")
        try check("Asia/Kolkata", wall(2026, 3, 8, 2, 30), .unique, 1_772_917_200, 19800)
    }

    func testFarFutureViaFooter_2100() throws {
        let ny = try db.zone(named: "America/New_York")
        XCTAssertGreaterThan(Int64(4_102_444_800), ny.footerStart, "2100 must be past the table")
        // 2100-03-14 is the second Sunday of March: 02:30 does not exist.
        try check("America/New_York", wall(2100, 3, 14, 2, 30), .gap, 4_108_692_600, -18000, later: 4_108_689_000)
        // 2100-11-07 01:30 happens twice.
        try check("America/New_York", wall(2100, 11, 7, 1, 30), .fold, 4_129_248_600, -14400, later: 4_129_252_200)
        XCTAssertEqual(ny.offset(at: Instant(seconds: 4_108_690_799)).abbreviation, "EST")  // 2100-03-14T06:59:59Z
        XCTAssertEqual(ny.offset(at: Instant(seconds: 4_108_690_800)).abbreviation, "EDT")  // 2100-03-14T07:00:00Z
    }
}
