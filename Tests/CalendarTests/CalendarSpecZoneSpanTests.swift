import SystemZones
import SeededRandomness
@testable import SchedCalendar
import XCTest

/// The elapse search caches offset spans; a span must agree with `offset(at:)` over its whole extent.
final class CalendarSpecZoneSpanTests: XCTestCase {
    func testOffsetSpans_agreeWithOffsetLookups() throws {
        let names = ["America/New_York", "Europe/Berlin", "Europe/Dublin", "Australia/Lord_Howe", "America/Santiago",
                     "America/Havana", "Pacific/Apia", "Asia/Kolkata", "UTC", "America/St_Johns", "Africa/Casablanca"]
        var random = SplitMix64(seed: 42)
        var checked = 0
        for name in names {
            guard let zone = try? ZoneDatabase.shared.zone(named: name) else { throw missingReference("no zoneinfo for \(name)") }
            for _ in 0..<400 {
                let t = Int64(random.int(0...7_258_118_399))
                let span = zone.offsetSpan(containing: t)
                XCTAssertTrue(span.contains(t), "\(name) @\(t): span \(span.from)..<\(span.until)")
                for probe in [t, span.from, span.until == Int64.max ? t : span.until - 1] {
                    let o = zone.offset(at: Instant(seconds: probe))
                    XCTAssertEqual(o.utcOffsetSeconds, span.utcOffset, "\(name) @\(probe) in span of @\(t)")
                    XCTAssertEqual(o.isDST, span.isDST, "\(name) @\(probe) in span of @\(t)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10_000)
    }
}
