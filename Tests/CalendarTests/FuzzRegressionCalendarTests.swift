import SystemZones
import SchedCalendar
import XCTest

/// Regressions found by the calendar fuzz harness and the ASan run of the differential suite
/// (docs/fuzzing.md): `nextElapse(after:in:)` must return an instant strictly after its base, and
/// following elapses must keep moving forward, also across DST changes at odd hours.
///
/// Expected instants are systemd-analyze 252's output
/// (`TZ=Zone systemd-analyze calendar --iterations=2 --base-time=@BASE SPEC`).
final class FuzzRegressionCalendarTests: XCTestCase {
    private func elapses(_ spec: String, zone: String, base: Int64, count: Int = 2) throws -> [Int64] {
        let parsed = try CalendarSpec(parsing: spec, zones: ZoneDatabase.shared)
        let rules = try ZoneDatabase.shared.zone(named: zone)
        var out: [Int64] = []
        var after = Instant(seconds: base)
        while out.count < count, let next = parsed.nextElapse(after: after, in: rules) {
            XCTAssertGreaterThan(next, after, "\(spec) in \(zone): elapse \(next) not after \(after)")
            if next <= after { break }
            out.append(next.seconds)
            after = next
        }
        return out
    }

    /// Dublin, 2005-03-27 00:52:32Z, eight minutes before GMT → IST (Dublin's TZif marks winter as
    /// DST, summer as standard time). 01:09 GMT is in the gap, so the first elapse is 02:09 IST.
    func testDublinSpringForward_minuteSpec_elapsesAfterBase() throws {
        XCTAssertEqual(try elapses("*:09", zone: "Europe/Dublin", base: 1_111_884_752),
                       [1_111_885_740, 1_111_889_340])
    }

    /// Dublin, 2012-03-25 00:54:25Z: `*:19:0/1` → 02:19:00 IST, then 02:19:01 IST.
    func testDublinSpringForward_secondChain_elapsesAfterBase() throws {
        XCTAssertEqual(try elapses("*:19:0/1", zone: "Europe/Dublin", base: 1_332_636_865),
                       [1_332_638_340, 1_332_638_341])
    }

    /// Havana changes at midnight (2016-03-13 00:00 CST → 01:00 CDT); base 23:59:34 CST the day before.
    func testHavanaMidnightSpringForward_elapsesAfterBase() throws {
        XCTAssertEqual(try elapses("*:11,30/22:*", zone: "America/Havana", base: 1_457_845_174),
                       [1_457_847_000, 1_457_847_001])
    }

    /// Dublin, 2029-03-25: the first elapse is 00:00 GMT; the next must be a later day, not the same instant.
    func testDublinEndOfMonthChain_nextElapseMovesForward() throws {
        XCTAssertEqual(try elapses("29-4,7,3/5~2,5..6,4..4,7..7/1", zone: "Europe/Dublin", base: 1_332_636_865),
                       [1_869_091_200, 1_869_174_000])
    }

    /// Found by the calendar fuzz harness in its first second: `daily` floating in Dublin from
    /// 2026-03-29T00:52Z (eight minutes before GMT → IST). 01:00 GMT does not exist that night; the
    /// next midnight is 2026-03-30 00:00 IST (23:00Z). Before the fix the elapse was 00:00Z, in the past.
    func testDublinSpringForward_daily_elapsesAfterBase() throws {
        XCTAssertEqual(try elapses("daily", zone: "Europe/Dublin", base: 1_774_745_520),
                       [1_774_825_200, 1_774_911_600])
    }
}
