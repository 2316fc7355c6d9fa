import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §7 and §3 details: cancelling a notification still on screen closes it and says so
/// (`closed`, history `closed`); a run cancel answers with the run; a repeating schedule's one
/// `missed` record names its latest missed occurrence.
final class EngineCloseAndMissedTests: XCTestCase {
    let t0 = utc(2026, 4, 1)  // Wednesday 2026-04-01T00:00:00Z

    func testCancelOfAShownOneShot_closesIt_reportsClosed_andRecordsClosed() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("run_1:a", atFixed(t0.adding(seconds: 60))), now: t0)
        try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["run_1:a"])
        let result = try h.e.cancelReporting(id: "run_1:a", now: t0.adding(seconds: 180))
        XCTAssertEqual(result, CancelResult(cancelled: [], closed: ["run_1:a"]))
        XCTAssertEqual(try h.events(of: "run_1:a"), [.fired, .closed])
        let closed = try h.history().last
        XCTAssertEqual(closed?.reason, "cli")
        XCTAssertEqual(closed?.due, t0.adding(seconds: 60))
        // Closed once: a second cancel finds nothing on screen.
        XCTAssertEqual(try h.e.cancelReporting(id: "run_1:a", now: t0.adding(seconds: 240)), CancelResult(cancelled: [], closed: []))
        // Never shown: nothing to close.
        try h.push(makeLocal("run_1:b", atFixed(t0.adding(seconds: 3600))), now: t0.adding(seconds: 240))
        XCTAssertEqual(try h.e.cancelReporting(id: "run_1:b", now: t0.adding(seconds: 300)),
                       CancelResult(cancelled: ["run_1:b"], closed: []))
    }

    func testRunCancelByPush_answersWithTheRun_andClosesShownCalendar() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("run_2:cal", .calendar("*-*-* *:00:00")), now: t0)
        try h.push(makeLocal("run_2:later", atFixed(t0.adding(seconds: 86_400))), now: t0)
        try h.e.advance(to: t0.adding(seconds: 3600), mode: .timePassing)
        let outcomes = try h.e.push(Push(cancel: .run("run_2")), now: t0.adding(seconds: 3700))
        XCTAssertEqual(outcomes.count, 1)
        XCTAssertTrue(outcomes[0].isRun)
        XCTAssertEqual(outcomes[0].id, "run_2")
        XCTAssertEqual(outcomes[0].cancelled.map(Set.init), ["run_2:cal", "run_2:later"])
        XCTAssertEqual(outcomes[0].closed, ["run_2:cal"])
        XCTAssertEqual(try h.events(of: "run_2:cal"), [.fired, .cancelled, .closed])
        XCTAssertEqual(try h.events(of: "run_2:later"), [.cancelled])
        // An id cancel is answered with the id, not as a run.
        let byID = try h.e.push(Push(cancel: .id("run_9:x")), now: t0.adding(seconds: 3800))
        XCTAssertEqual(byID.first?.isRun, false)
        XCTAssertEqual(byID.first?.closed, [])
    }

    /// `é` precomposed and `e` + U+0301 are two ids (the store's bytes): a run cancel closes both
    /// notifications, not only the first, though Swift's `String` calls the two equal.
    func testRunCancel_closesEachShownId_byItsBytes() throws {
        let h = try EngineHarness(now: t0)
        let ids = ["run_5:\u{E9}", "run_5:e\u{301}"]
        for id in ids { try h.push(makeLocal(id, atFixed(t0.adding(seconds: 60))), now: t0) }
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.count, 2, "two schedules fired")
        let outcome = try h.e.push(Push(cancel: .run("run_5")), now: t0.adding(seconds: 120))
        XCTAssertEqual(outcome.first?.closed?.count, 2, "both closed")
        XCTAssertEqual(try h.history().filter { $0.event == .closed }.count, 2)
    }

    /// A push that replaces its run spares only its own schedule, by bytes: `run_6:e` + U+0301 is another
    /// schedule than the push's `run_6:\u{E9}`, and is cancelled with the rest of the run.
    func testARunCancelSparingThePushesOwnId_sparesThatIdOnly_byItsBytes() throws {
        let h = try EngineHarness(now: t0)
        let own = makeLocal("run_6:\u{E9}", atFixed(t0.adding(seconds: 90)))
        try h.push(own, now: t0)
        try h.push(makeLocal("run_6:e\u{301}", atFixed(t0.adding(seconds: 60))), now: t0)
        // The same push again, now also replacing its run: its own unchanged schedule is spared.
        let outcomes = try h.e.push(Push(cancel: .run("run_6"), local: own), now: t0)
        XCTAssertEqual(outcomes.first?.cancelled, ["run_6:e\u{301}"])
        try h.e.advance(to: t0.adding(seconds: 90), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map { Array($0.id.utf8) }, [Array("run_6:\u{E9}".utf8)])
    }

    func testRepeatingScheduleMissedWhileDown_namesItsLatestMissedOccurrence() throws {
        let h = try EngineHarness(now: t0)
        // Hourly with a 10-minute grace; the clock then jumps 5 h 30 min (down, asleep, or stepped).
        try h.push(makeLocal("hourly", .calendar("*-*-* *:00:00"), grace: 600), now: t0)
        try h.e.advance(to: t0.adding(seconds: 5 * 3600 + 1800), mode: .wallClock)
        let missed = try h.history().filter { $0.id == "hourly" }
        XCTAssertEqual(missed.map(\.event), [.missed])
        XCTAssertEqual(missed.first?.due, t0.adding(seconds: 5 * 3600))   // 05:00, not 01:00
        XCTAssertEqual(missed.first?.lateSeconds, 1800)
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 6 * 3600))
        // A sparse schedule far behind: the search widens until it finds the last one.
        try h.push(makeLocal("monthly", .calendar("*-*-01 12:00:00"), grace: 60), now: t0.adding(seconds: 5 * 3600 + 1800))
        try h.e.advance(to: utc(2027, 2, 10), mode: .wallClock)
        let monthly = try h.history().filter { $0.id == "monthly" }
        XCTAssertEqual(monthly.map(\.event), [.missed])
        XCTAssertEqual(monthly.first?.due, utc(2027, 2, 1, 12))
    }
}
