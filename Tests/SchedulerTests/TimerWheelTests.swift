import SeededRandomness
import XCTest
import SchedCalendar
@testable import Scheduler

final class TimerWheelTests: XCTestCase {
    let t0 = Instant(seconds: 1_795_000_000) // 2026-11-17T…Z
    let year: Int64 = 365 * 86_400 * 1_000_000

    func testDueWithinATick_firesAtItsExactMicrosecond_notAtTheTickBoundary() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(microseconds: 1_500))
        XCTAssertEqual(wheel.advance(to: t0.adding(microseconds: 1_000)).map(\.key), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(microseconds: 1_499)).map(\.key), [])
        XCTAssertEqual(wheel.nextExpiry, t0.adding(microseconds: 1_500))
        let fired = wheel.advance(to: t0.adding(microseconds: 1_500))
        XCTAssertEqual(fired.map(\.key), [1])
        XCTAssertEqual(fired.first?.due, t0.adding(microseconds: 1_500))
        XCTAssertEqual(wheel.count, 0)
        XCTAssertNil(wheel.nextExpiry)
    }

    func testEqualDues_expireInKeyOrder_andEarlierDuesFirst() {
        var wheel = TimerWheel(now: t0)
        let due = t0.adding(seconds: 3_600)
        for key: Int64 in [9, 3, 7, 1] { wheel.insert(key: key, due: due) }
        wheel.insert(key: 5, due: due.adding(microseconds: -1))
        wheel.insert(key: 2, due: due.adding(microseconds: 1))
        XCTAssertEqual(wheel.advance(to: due.adding(seconds: 1)).map(\.key), [5, 1, 3, 7, 9, 2])
    }

    func testOverdueInsert_expiresOnNextAdvance_evenToTheSameInstant() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 4, due: t0.adding(seconds: -60))
        wheel.insert(key: 3, due: t0)
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: -60))
        XCTAssertEqual(wheel.advance(to: t0).map(\.key), [4, 3])
    }

    func testCancellingTheEarliestOverdueTimer_nextExpiryIsTheNextOverdueOne() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 5))
        wheel.insert(key: 2, due: t0.adding(seconds: -20))
        wheel.insert(key: 3, due: t0.adding(seconds: -10))
        XCTAssertTrue(wheel.cancel(key: 2))
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: -10))
    }

    func testHundredYearsOut_nextExpiryIsExact_andFiresOnlyAtItsDue() {
        var wheel = TimerWheel(now: t0)
        let due = t0.adding(microseconds: 100 * year + 123_457)
        wheel.insert(key: 1, due: due)
        wheel.insert(key: 2, due: t0.adding(microseconds: 2 * year))
        XCTAssertEqual(wheel.advance(to: t0.adding(microseconds: 2 * year)).map(\.key), [2])
        XCTAssertEqual(wheel.nextExpiry, due)
        XCTAssertEqual(wheel.advance(to: due.adding(microseconds: -1)).map(\.key), [])
        XCTAssertEqual(wheel.advance(to: due).map(\.key), [1])
    }

    func testClockStepsBack_nothingExpires_andTimersStillFireAtTheirDue() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 10))
        wheel.insert(key: 2, due: t0.adding(seconds: 86_400))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 5)).map(\.key), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: -3_600)).map(\.key), [])
        XCTAssertEqual(wheel.now, t0.adding(seconds: -3_600))
        XCTAssertEqual(wheel.count, 2)
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: 10))
        XCTAssertEqual(wheel.invariantViolations(), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 9)).map(\.key), [])
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 86_400)).map(\.key), [1, 2])
    }

    func testReinsert_movesTheTimer_andNextExpiryFollowsBothWays() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 10))
        wheel.insert(key: 2, due: t0.adding(seconds: 20))
        wheel.insert(key: 1, due: t0.adding(seconds: 30))
        XCTAssertEqual(wheel.count, 2)
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: 20))
        XCTAssertEqual(wheel.due(ofKey: 1), t0.adding(seconds: 30))
        wheel.insert(key: 1, due: t0.adding(seconds: 1))
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: 1))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 25)).map(\.key), [1, 2])
    }

    func testCancel_reportsPresence_andCancellingTheEarliestUpdatesNextExpiry() {
        var wheel = TimerWheel(now: t0)
        wheel.insert(key: 1, due: t0.adding(seconds: 10))
        wheel.insert(key: 2, due: t0.adding(seconds: 20))
        XCTAssertTrue(wheel.cancel(key: 1))
        XCTAssertFalse(wheel.cancel(key: 1))
        XCTAssertFalse(wheel.cancel(key: 99))
        XCTAssertNil(wheel.due(ofKey: 1))
        XCTAssertEqual(wheel.nextExpiry, t0.adding(seconds: 20))
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 60)).map(\.key), [2])
    }

    func testEndsOfTheInstantRange_areOrderedAndExpire() {
        var wheel = TimerWheel(now: Instant(microseconds: 0))
        wheel.insert(key: 1, due: Instant(microseconds: .max))
        wheel.insert(key: 2, due: Instant(microseconds: .min))
        wheel.insert(key: 3, due: Instant(microseconds: .max - 999))
        XCTAssertEqual(wheel.nextExpiry, Instant(microseconds: .min))
        XCTAssertEqual(wheel.advance(to: Instant(microseconds: 1)).map(\.key), [2])
        XCTAssertEqual(wheel.advance(to: Instant(microseconds: .max - 1)).map(\.key), [3])
        XCTAssertEqual(wheel.advance(to: Instant(microseconds: .max)).map(\.key), [1])
    }

    func testCallbackAdvance_reportsTheSameSequenceAsTheArrayForm() {
        var a = TimerWheel(now: t0), b = TimerWheel(now: t0)
        var rng = SplitMix64(seed: 5)
        for key in Int64(0)..<2_000 {
            let due = t0.adding(microseconds: Int64.random(in: 0...year, using: &rng))
            a.insert(key: key, due: due)
            b.insert(key: key, due: due)
        }
        var viaCallback: [Int64] = []
        b.advance(to: t0.adding(microseconds: year / 2)) { key, _ in viaCallback.append(key) }
        XCTAssertEqual(a.advance(to: t0.adding(microseconds: year / 2)).map(\.key), viaCallback)
        XCTAssertEqual(a.count, b.count)
    }

    /// Cancelled entries stay in their slots until a sweep (invariant 3), so the first round of churn may
    /// grow storage by the cancelled entries it keeps; after it, handles and slot capacity are reused and
    /// storage does not grow however long the churn goes on.
    func testSlabEntriesAreReused_soStorageStaysBoundedUnderChurn() {
        var wheel = TimerWheel(now: t0)
        for key in Int64(0)..<1_000 { wheel.insert(key: key, due: t0.adding(seconds: key + 1)) }
        let initial = wheel.allocatedBytes
        var afterFirstRound = 0
        for round in Int64(1)...20 {
            for key in Int64(0)..<1_000 { XCTAssertTrue(wheel.cancel(key: key + (round - 1) * 1_000)) }
            for key in Int64(0)..<1_000 { wheel.insert(key: key + round * 1_000, due: t0.adding(seconds: key + 1)) }
            if round == 1 { afterFirstRound = wheel.allocatedBytes }
            XCTAssertEqual(wheel.invariantViolations(), [], "round \(round)")
        }
        XCTAssertEqual(wheel.count, 1_000)
        XCTAssertLessThanOrEqual(wheel.allocatedBytes, afterFirstRound)
        XCTAssertLessThanOrEqual(wheel.allocatedBytes, initial * 2, "at most half as many cancelled entries again, and slack")
    }

    /// A cancel leaves the entry in its slot (lazy); the sweep drops the cancelled entries once they
    /// outnumber half the pending timers plus the slack, so memory held by cancelled timers is bounded.
    func testCancelledEntries_areSweptOnceTheyOutnumberHalfThePending() {
        var wheel = TimerWheel(now: t0)
        for key in Int64(0)..<10_000 { wheel.insert(key: key, due: t0.adding(seconds: 3_600 + key)) }
        for key in Int64(0)..<3_000 { XCTAssertTrue(wheel.cancel(key: key * 3)) }
        XCTAssertEqual(wheel.count, 7_000)
        XCTAssertLessThanOrEqual(wheel.cancelledCount, 7_000 / 2 + TimerWheel.sweepSlack)
        XCTAssertGreaterThan(wheel.cancelledCount, 0, "cancel is lazy: entries wait for their slot or a sweep")
        for key in Int64(0)..<3_000 { XCTAssertNil(wheel.due(ofKey: key * 3)) }
        XCTAssertEqual(wheel.invariantViolations(), [])
        // Cancelling most of the rest forces sweeps: never more cancelled entries than the bound.
        for key in Int64(0)..<10_000 where key % 3 != 0 && key % 7 != 0 {
            XCTAssertTrue(wheel.cancel(key: key))
            XCTAssertLessThanOrEqual(wheel.cancelledCount, wheel.count / 2 + TimerWheel.sweepSlack)
        }
        XCTAssertEqual(wheel.invariantViolations(), [])
        let survivors = (Int64(0)..<10_000).filter { key in
            key % 3 == 0 ? key >= 9_000 : key % 7 == 0
        }
        XCTAssertEqual(wheel.advance(to: t0.adding(seconds: 20_000)).map(\.key), survivors)
        XCTAssertEqual(wheel.cancelledCount, 0)
        XCTAssertEqual(wheel.invariantViolations(), [])
    }
}
