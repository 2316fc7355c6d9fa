import XCTest
@testable import schedd

/// The refusal log (CONTRACT §9 "Access"): one full line per caller uid and 10 s, the rest counted and
/// summed up in that uid's next line; another uid is not silenced by a noisy one.
final class RefusalLogTests: XCTestCase {
    func testRefusals_firstLoggedPerUid_restCountedIntoTheNextLine() {
        var log = RateLimitedLog()
        XCTAssertEqual(log.line(for: 1000, "refused Push", now: 100), "refused Push")
        XCTAssertNil(log.line(for: 1000, "refused Push", now: 101))
        XCTAssertNil(log.line(for: 1000, "refused Push", now: 109))
        XCTAssertEqual(log.line(for: 2000, "refused List", now: 105), "refused List", "a quiet uid is logged at once")
        XCTAssertEqual(log.line(for: 1000, "refused Push", now: 110), "refused Push (2 more refusals not logged)")
        XCTAssertNil(log.line(for: 1000, "refused Push", now: 111))
    }

    func testRefusalLog_aClockStepBack_startsANewInterval() {
        var log = RateLimitedLog()
        XCTAssertNotNil(log.line(for: 7, "refused", now: 1_000))
        XCTAssertEqual(log.line(for: 7, "refused", now: 10), "refused", "stepping back 990 s is a new interval")
    }
}
