import XCTest
@testable import ScheddService

/// A wall-clock step, told from the clocks alone: what a due-timer wake uses to word a folded summary.
final class WallClockStepsTests: XCTestCase {
    private let second: Int64 = 1_000_000

    func testTimePassing_sleeping_andSlewing_areNoStep() {
        var steps = WallClockSteps(realtime: 1_000 * second, boottime: 50 * second)
        XCTAssertFalse(steps.stepped(realtime: 1_010 * second, boottime: 60 * second), "10 s passed on both clocks")
        // A sleep of an hour: CLOCK_BOOTTIME counts it, the wall clock too.
        XCTAssertFalse(steps.stepped(realtime: 4_610 * second, boottime: 3_660 * second))
        // NTP slewing at its 500 ppm bound over an hour: 1.8 s, within 1 s + 0.1 % of the hour (4.6 s).
        XCTAssertFalse(steps.stepped(realtime: 8_211 * second + 800_000, boottime: 7_260 * second))
    }

    func testAStepEitherWay_isAStep_andOnlyOnce() {
        var steps = WallClockSteps(realtime: 1_000 * second, boottime: 50 * second)
        XCTAssertTrue(steps.stepped(realtime: 1_000 * second + 3_600 * second, boottime: 51 * second), "an hour forward")
        XCTAssertFalse(steps.stepped(realtime: 4_602 * second, boottime: 52 * second), "the step is the new reference")
        XCTAssertTrue(steps.stepped(realtime: 4_500 * second, boottime: 53 * second), "103 s back")
        // Just beyond the tolerance after 10 s: 1 s + 10 ms allowed.
        XCTAssertTrue(steps.stepped(realtime: 4_511 * second + 20_000, boottime: 63 * second))
        XCTAssertFalse(steps.stepped(realtime: 4_521 * second + 20_000 + 1_000_000, boottime: 73 * second), "1 s exactly is within")
    }
}
