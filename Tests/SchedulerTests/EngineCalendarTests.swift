import SchedCalendar
import XCTest
@testable import Scheduler

/// Repeating schedules in the engine (UTC device zone): every occurrence in order, `until`, batching.
final class EngineCalendarTests: XCTestCase {
    let t0 = utc(2026, 4, 1)  // Wednesday 2026-04-01T00:00:00Z

    func testTimePassing_firesEveryOccurrence_interleavedWithOneShots_inDueOrder() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("hourly", .calendar("*-*-* *:00:00")), now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 5400))), now: t0)   // 01:30
        try h.push(makeLocal("b", atFixed(t0.adding(seconds: 7200))), now: t0)   // 02:00, ties break by key
        let fired = try h.e.advance(to: t0.adding(seconds: 3 * 3600), mode: .timePassing)
        XCTAssertEqual(fired.map(\.id), ["hourly", "a", "hourly", "b", "hourly"])
        XCTAssertEqual(fired.map(\.due), [3600, 5400, 7200, 7200, 10800].map { t0.adding(seconds: $0) })
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 4 * 3600))
    }

    func testLongAdvance_moreOccurrencesThanOneBatch_allFireOnceInOrder() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("minutely", .calendar("*:*:00")), now: t0)
        let fired = try h.e.advance(to: t0.adding(seconds: 86_400), mode: .timePassing)
        XCTAssertEqual(fired.count, 1440)
        XCTAssertEqual(fired.map(\.due), (1...1440).map { t0.adding(seconds: Int64($0) * 60) })
        XCTAssertEqual(try h.history(5000).count, 1440)
    }

    func testUntil_stopsOccurrences_thenRedeliveryIsDuplicate() throws {
        let h = try EngineHarness(now: t0)
        let local = makeLocal("three", .calendar("*-*-* 09:00:00"), until: .fixed(utc(2026, 4, 3, 9), offsetSeconds: 0))
        XCTAssertEqual(try h.push(local, now: t0).next, utc(2026, 4, 1, 9))
        try h.e.advance(to: utc(2026, 4, 2), mode: .timePassing)
        try h.restart(now: utc(2026, 4, 2))
        try h.e.advance(to: utc(2026, 4, 10), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 4, 1, 9), utc(2026, 4, 2, 9), utc(2026, 4, 3, 9)])
        XCTAssertEqual(h.e.pendingCount, 0)
        XCTAssertEqual(try h.push(local, now: utc(2026, 4, 10)).status, .duplicate)
    }

    func testCalendar_withNoOccurrenceLeft_isMissed() throws {
        let h = try EngineHarness(now: t0)
        let local = makeLocal("over", .calendar("*-*-* 09:00:00"), until: .fixed(utc(2026, 3, 1), offsetSeconds: 0))
        let outcome = try h.push(local, now: t0)
        XCTAssertEqual(outcome.status, .missed)
        XCTAssertNil(outcome.next)
        XCTAssertEqual(try h.history().map(\.event), [.missed])
    }

    func testTimePassing_afterLatePush_firesAtPushTimeWithLateness() throws {
        let h = try EngineHarness(now: t0)
        try h.e.advance(to: t0, mode: .timePassing)
        let pushedAt = t0.adding(seconds: 7200)
        try h.push(makeLocal("late", atFixed(pushedAt.adding(seconds: -1800))), now: pushedAt)
        let fired = try h.e.advance(to: pushedAt.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(fired.map(\.at), [pushedAt])
        XCTAssertEqual(fired.map(\.lateSeconds), [1800])
    }

    func testWallClockJump_overRepeats_firesLatestOnce_thenOnTime() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("q", .calendar("*:0/15")), now: t0)  // every 15 minutes
        let jumped = try h.e.advance(to: t0.adding(seconds: 3 * 3600 + 60), mode: .wallClock)
        XCTAssertEqual(jumped.map(\.due), [t0.adding(seconds: 3 * 3600)])
        XCTAssertEqual(jumped.map(\.lateSeconds), [60])
        let next = try h.e.advance(to: t0.adding(seconds: 3 * 3600 + 900), mode: .timePassing)
        XCTAssertEqual(next.map(\.due), [t0.adding(seconds: 3 * 3600 + 900)])
        XCTAssertEqual(next.map(\.lateSeconds), [0])
        // Stepping back does not bring earlier occurrences again.
        XCTAssertEqual(try h.e.advance(to: t0.adding(seconds: 3600), mode: .wallClock), [])
        XCTAssertEqual(try h.e.advance(to: t0.adding(seconds: 3 * 3600 + 900), mode: .wallClock), [])
    }

    func testCancelOfCalendarThatFired_closesItsNotification() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("cal", .calendar("daily")), now: t0)
        try h.e.advance(to: utc(2026, 4, 2, 1), mode: .timePassing)
        XCTAssertEqual(try h.e.cancel(id: "cal", now: utc(2026, 4, 2, 1)), ["cal"])
        XCTAssertEqual(h.notifier.closed, ["cal"])
        XCTAssertEqual(try h.e.advance(to: utc(2026, 4, 5), mode: .timePassing), [])
    }
}
