import XCTest
import SchedCalendar
@testable import Scheduler

/// The key table leaves expired keys behind as stale buckets (invariant 7 of TimerWheel): these
/// tests check that an expired key is absent everywhere users can look, including after the clock
/// steps back over its due, and that stale buckets do not make the table grow.
final class TimerWheelKeyTableTests: XCTestCase {
    let t0 = Instant(seconds: 1_795_000_000)

    func testExpiredKey_isAbsent_andStaysAbsentWhenTheClockStepsBackOverItsDue() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 7, due: t0.adding(seconds: 10))
        wheel.insert(key: 8, due: t0.adding(seconds: 30))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 20)).map(\.key), [7])
        XCTAssertNil(wheel.due(ofKey: 7))
        XCTAssertFalse(wheel.cancel(key: 7))
        XCTAssertEqual(wheel.advance(to: t0).map(\.key), [])
        XCTAssertNil(wheel.due(ofKey: 7))
        XCTAssertFalse(wheel.cancel(key: 7))
        XCTAssertEqual(wheel.count, 1)
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: 30))
        XCTAssertEqual(wheel.invariantViolations(), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 60)).map(\.key), [8])
    }

    func testTimerInsertedAlreadyDue_isPendingUntilTheNextAdvance_thenGone() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: -5))
        XCTAssertEqual(wheel.due(ofKey: 1), t0.adding(seconds: -5))
        XCTAssertEqual(wheel.advance(to: t0).map(\.key), [1])
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -60)).map(\.key), [])
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.count, 0)
        XCTAssertEqual(wheel.invariantViolations(), [])
    }

    func testTimerInsertedAlreadyDue_thenClockStepsBackBeforeIt_firesAtItsDue() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: -5))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -10)).map(\.key), [])
        XCTAssertEqual(wheel.due(ofKey: 1), t0.adding(seconds: -5))
        XCTAssertEqual(wheel.invariantViolations(), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -6)).map(\.key), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -5)).map(\.key), [1])
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -20)).map(\.key), [])
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.invariantViolations(), [])
    }

    func testKeyReinsertedAfterExpiring_isPendingAgain_andFiresOnce() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 3, due: t0.adding(seconds: 1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 2)).map(\.key), [3])
        wheel.insert(key: 3, due: t0.adding(seconds: 5))
        XCTAssertEqual(wheel.due(ofKey: 3), t0.adding(seconds: 5))
        XCTAssertEqual(wheel.count, 1)
        XCTAssertEqual(wheel.invariantViolations(), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 9)).map(\.key), [3])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 19)).map(\.key), [])
    }

    /// Rounds of insert-then-expire-all with fresh keys: expired keys are purged when the table
    /// fills instead of growing it, and every round still expires exactly its own timers.
    func testExpiryChurn_staleBucketsArePurged_notGrown() {
        var wheel = TimerWheel(now: t0)
        var now = t0
        var buckets: Int?
        for round in Int64(0)..<40 {
            for i in Int64(0)..<1_000 { wheel.insert(key: round * 1_000 + i, due: now.adding(seconds: i + 1)) }
            if buckets == nil { buckets = wheel.tableBuckets }
            now = now.adding(seconds: 2_000)
            let fired = wheel.advance(to: now).map(\.key)
            XCTAssertEqual(fired, Array((round * 1_000)..<(round * 1_000 + 1_000)), "round \(round)")
            XCTAssertEqual(wheel.count, 0)
        }
        XCTAssertEqual(wheel.tableBuckets, buckets)
        XCTAssertNil(wheel.due(ofKey: 39_999))
        XCTAssertEqual(wheel.invariantViolations(), [])
    }

    /// Handles are reused as soon as a timer leaves: cancelling a key whose old handle now belongs
    /// to another timer cancels only the right one.
    func testHandleReuse_cancelAndLookupFindTheRightTimer() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 1)).map(\.key), [1])
        wheel.insert(key: 2, due: t0.adding(seconds: 10))
        XCTAssertFalse(wheel.cancel(key: 1))
        XCTAssertEqual(wheel.due(ofKey: 2), t0.adding(seconds: 10))
        XCTAssertTrue(wheel.cancel(key: 2))
        XCTAssertEqual(wheel.count, 0)
        XCTAssertNil(wheel.nextExpiry)
        XCTAssertEqual(wheel.invariantViolations(), [])
    }

    /// A restore sizes the table first (`reserveCapacity`): inserting that many keys then never grows
    /// it, and the keys already there (some of them stale, one overdue) survive the resize.
    func testReserveCapacity_sizesTheTableSoTheStreamNeverGrowsIt_andKeepsWhatIsThere() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 5))
        wheel.insert(key: 2, due: t0.adding(seconds: 50))
        wheel.insert(key: 3, due: t0.adding(seconds: -1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 10)).map(\.key), [3, 1])
        wheel.insert(key: 4, due: t0.adding(seconds: 9))  // overdue at insertion: flagged
        wheel.reserveCapacity(100_000)
        let buckets = wheel.tableBuckets
        XCTAssertGreaterThanOrEqual(buckets, 200_000)
        XCTAssertLessThan(buckets, 400_000, "the next power of two, not more")
        XCTAssertEqual(wheel.due(ofKey: 2), t0.adding(seconds: 50))
        XCTAssertEqual(wheel.due(ofKey: 4), t0.adding(seconds: 9))
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.invariantViolations(), [])
        for key in Int64(10)..<100_008 { wheel.insert(key: key, due: t0.adding(seconds: 60 + key % 5_000)) }
        XCTAssertEqual(wheel.tableBuckets, buckets, "the reserved table did not grow")
        XCTAssertEqual(wheel.count, 100_000)
        wheel.reserveCapacity(10)
        XCTAssertEqual(wheel.tableBuckets, buckets, "never shrinks")
        XCTAssertEqual(wheel.invariantViolations(), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 55)).map(\.key), [4, 2])
    }
}
