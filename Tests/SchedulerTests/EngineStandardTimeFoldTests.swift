import SchedCalendar
import XCTest
@testable import Scheduler

/// A calendar pushed inside a standard-time fold (Europe/Moscow 2014-10-26 01:00–02:00 happened twice,
/// +04 then +03, both standard time) takes the elapse `systemd-analyze calendar --base-time` prints for
/// that base (glibc's mktime with a fresh state lands on the second pass), then continues the series as
/// `--iterations` does. Reference values from systemd 252 (CalendarSpecStandardTimeFoldTests compares live).
final class EngineStandardTimeFoldTests: XCTestCase {
    func testPushInsideTheFold_firstElapseAndSeries_asSystemd() throws {
        let moscow = try loadZone("Europe/Moscow")
        let base = Instant(seconds: 1_414_270_975)  // 2014-10-26 01:02:55 +04, the first pass
        let h = try EngineHarness(zone: moscow, now: base)
        XCTAssertEqual(try h.push(makeLocal("half", .calendar("*:30")), now: base).next,
                       Instant(seconds: 1_414_276_200))  // 01:30 +03 (22:30Z), as systemd 252 prints
        try h.e.advance(to: Instant(seconds: 1_414_287_000), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due.seconds), [1_414_276_200, 1_414_279_800, 1_414_283_400, 1_414_287_000])
    }
}
