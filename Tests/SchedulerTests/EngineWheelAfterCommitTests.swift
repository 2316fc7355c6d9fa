import SchedCalendar
import XCTest
@testable import Scheduler

/// Engine hygiene: wheel changes are applied only after COMMIT, so a failed transaction leaves the wheel
/// exactly as the store is (no rebuild), and a failed storage call carries the store's error as its cause.
final class EngineWheelAfterCommitTests: XCTestCase {
    let t0 = utc(2026, 3, 1, 12)

    func setReadOnly(_ h: EngineHarness, _ on: Bool) throws {
        let store = h.e.store
        try store.db.execute("PRAGMA query_only = \(on ? 1 : 0)")
    }

    func testFailedPushAndCancel_leaveTheWheelAsTheStoreIs() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60))), now: t0)
        try setReadOnly(h, true)
        XCTAssertThrowsError(try h.push(makeLocal("b", atFixed(t0.adding(seconds: 30))), now: t0)) { error in
            let e = error as? EngineError
            XCTAssertEqual(e?.kind, .storage)
            XCTAssertEqual(e?.cause?.kind, .io, "the store's error is the cause")
        }
        XCTAssertThrowsError(try h.e.cancel(id: "a", now: t0))
        XCTAssertEqual(h.e.pendingCount, 1)
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 60), "nothing of the failed push or cancel reached the wheel")
        try setReadOnly(h, false)
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["a"])
    }

    func testFailedAdvance_putsItsEntriesBack() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("cal", .calendar("*:0/10")), now: t0)
        try h.push(makeLocal("one", atFixed(t0.adding(seconds: 900))), now: t0)
        try setReadOnly(h, true)
        XCTAssertThrowsError(try h.e.advance(to: t0.adding(seconds: 3600), mode: .timePassing))
        XCTAssertEqual(h.e.pendingCount, 2)
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 600), "the committed due, not an occurrence of the failed batch")
        try setReadOnly(h, false)
        try h.e.advance(to: t0.adding(seconds: 3600), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["cal", "one", "cal", "cal", "cal", "cal", "cal"])
    }

    /// `clock advance` over many calendars re-queues each occurrence in O(log n): 500 calendars × 12
    /// occurrences fire in due order, each exactly once.
    func testAdvanceOverManyCalendars_firesInDueOrder() throws {
        let h = try EngineHarness(now: t0)
        for i in 0..<500 { try h.push(makeLocal("c\(i)", .calendar("*:\(i % 60):00")), now: t0) }
        try h.e.advance(to: t0.adding(seconds: 12 * 3600), mode: .timePassing)
        let dues = h.notifier.shown.map(\.due)
        XCTAssertEqual(dues.count, 500 * 12)
        XCTAssertEqual(dues, dues.sorted())
        XCTAssertEqual(Set(h.notifier.shown.map { "\($0.id)@\($0.due)" }).count, 6000)
    }
}

/// The missed-occurrence collapse finds the latest occurrence without walking every one.
final class EngineLatestElapseTests: XCTestCase {
    func testPerSecondCalendar_downAWeek_collapsesToTheLatestOccurrence() throws {
        let t0 = utc(2026, 3, 1, 12)
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("tick", .calendar("*:*:*"), grace: 7 * 86_400), now: t0)
        let back = t0.adding(seconds: 7 * 86_400 + 1800)
        try h.restart(now: back)
        try h.e.advance(to: back.adding(microseconds: 500_000), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.map(\.due), [back], "one firing for 600,000 missed occurrences: the latest")
        XCTAssertEqual(h.e.nextDue, back.adding(seconds: 1))
        // Agrees with the exact walk where the walk is short.
        let s = try XCTUnwrap(h.e.store.schedules.schedule(app: Engine.defaultApp, id: "tick"))
        let from = back.adding(seconds: -100)
        XCTAssertEqual(try h.e.firing.latestElapse(s, from: from, through: back.adding(microseconds: 999_999)), back)
        XCTAssertEqual(try h.e.firing.latestElapse(s, from: from, through: back.adding(seconds: 200)), back.adding(seconds: 200))
    }
}
