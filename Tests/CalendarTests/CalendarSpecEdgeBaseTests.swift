import SchedCalendar
import SystemZones
import XCTest

/// Next elapses from base times at the edges (issue 21): the ends of `Int64`, of `Instant.supportedRange`
/// and of systemd's search (2200). Every search returns (found or never), never traps, and what it
/// finds is after its base. Regression: `@9223372036854.775807` trapped in `instant.microseconds + 1`.
final class CalendarSpecEdgeBaseTests: XCTestCase {
    static let edges: [Instant] = [
        Instant(microseconds: .max), Instant(microseconds: .max - 1), Instant(microseconds: .min),
        Instant(microseconds: .min + 1),
        Instant.supportedRange.lowerBound, Instant.supportedRange.lowerBound.adding(microseconds: -1),
        Instant.supportedRange.upperBound, Instant.supportedRange.upperBound.adding(microseconds: 1),
        Instant(seconds: 7_258_118_399),  // 2199-12-31T23:59:59Z, the last second systemd searches
        Instant(seconds: 7_258_118_400),  // 2200-01-01T00:00:00Z
        Instant(microseconds: -1),        // 1969-12-31T23:59:59.999999Z
    ]

    static let specs = ["daily", "minutely", "*-*-* *:*:01.000001", "*-02-29 00:00", "2199-12-31 23:59:59",
                        "Mon *-12-31 23:59:59.999999", "*-*~01", "1970-01-01 00:00:00", "daily Europe/Dublin",
                        "*:0/15 America/New_York"]

    func testEveryEdgeBase_returnsWithoutTrapping_andAnElapseIsAfterIt() throws {
        let zones = [TimeZoneRules.utc, try ZoneDatabase.shared.zone(named: "America/New_York"),
                     try ZoneDatabase.shared.zone(named: "Europe/Dublin")]
        for source in Self.specs {
            let spec = try CalendarSpec(parsing: source, zones: ZoneDatabase.shared)
            for zone in zones {
                for base in Self.edges {
                    if let elapse = spec.nextElapse(after: base, in: zone) {
                        XCTAssertGreaterThan(elapse, base, "\(source) after \(base.microseconds) µs")
                    }
                }
            }
        }
    }

    func testPastTheLastMicrosecond_isNever_andBefore2200StillFinds() throws {
        let daily = try CalendarSpec(parsing: "daily", zones: ZoneDatabase.shared)
        XCTAssertNil(daily.nextElapse(after: Instant(microseconds: .max), in: .utc))
        XCTAssertNil(daily.nextElapse(after: Instant.supportedRange.upperBound, in: .utc), "systemd searches to 2199 only")
        let last = try CalendarSpec(parsing: "2199-12-31 23:59:59", zones: ZoneDatabase.shared)
        XCTAssertEqual(last.nextElapse(after: Instant(seconds: 7_258_118_398), in: .utc), Instant(seconds: 7_258_118_399))
        XCTAssertNil(last.nextElapse(after: Instant(seconds: 7_258_118_399), in: .utc))
        // systemd's elapses cover 1970–2199: from before 1970 (the start of the supported range, Int64.min)
        // there is none, as from after 2199.
        XCTAssertNil(daily.nextElapse(after: Instant.supportedRange.lowerBound, in: .utc))
        XCTAssertNil(daily.nextElapse(after: Instant(microseconds: .min), in: .utc))
        XCTAssertEqual(daily.nextElapse(after: Instant(seconds: 0), in: .utc), Instant(seconds: 86_400))
    }
}
