import SchedCalendar
import XCTest
@testable import Scheduler

/// The words of a folded summary (CONTRACT §11 "No flood") name the cause of the catch-up they fold: a
/// start, a resume, a clock jump, or — once that catch-up is done — none of them.
final class EngineLateCauseTests: XCTestCase {
    private let t0 = utc(2026, 3, 2, 8)

    /// Four one-shots of one app, `first` + 1…4 minutes.
    private func pushFour(_ h: EngineHarness, _ prefix: String, from first: Instant) throws {
        for i in 1...4 {
            try h.push(makeLocal("\(prefix):\(i)", atFixed(first.adding(seconds: Int64(60 * i))), title: "\(prefix)\(i)"),
                       now: first)
        }
    }

    private func summaries(_ h: EngineHarness) -> [String] {
        h.notifier.shown.filter { $0.id == Engine.foldedSummaryID }.map(\.title)
    }

    func testEachCatchUpIsWordedByItsOwnCause_andALaterOneByNone() throws {
        let h = try EngineHarness(now: t0)
        // The start's catch-up: what fell due while no engine ran, delivered by the new one's first advance.
        try pushFour(h, "s", from: t0)
        try h.restart(now: t0.adding(seconds: 3600))
        XCTAssertEqual(h.e.lateCause, .start)
        try h.e.advance(to: t0.adding(seconds: 3600), mode: .wallClock)
        XCTAssertEqual(summaries(h), ["4 reminders while schedd was not running"])
        XCTAssertEqual(h.e.lateCause, .delayed, "the start's catch-up is done")

        // A resume: the daemon says so before it delivers.
        try pushFour(h, "r", from: t0.adding(seconds: 3600))
        h.e.lateCause = .resume
        try h.e.advance(to: t0.adding(seconds: 7200), mode: .wallClock)
        XCTAssertEqual(summaries(h).last, "4 reminders while this computer was asleep")

        // Late again with no sleep, start or jump told (a storage failure's recovery): not "asleep".
        try pushFour(h, "d", from: t0.adding(seconds: 7200))
        try h.e.advance(to: t0.adding(seconds: 10800), mode: .wallClock)
        XCTAssertEqual(summaries(h).last, "4 reminders delivered late")
        XCTAssertEqual(summaries(h).count, 3)
    }

    /// A catch-up sliced over several advances keeps its cause until its last slice.
    func testASlicedCatchUp_keepsItsCause_untilItsLastSlice() throws {
        let h = try EngineHarness(now: t0)
        for i in 1...(3 * Engine.firingBatchSize) {
            try h.push(makeLocal("j:\(i)", atFixed(t0.adding(seconds: Int64(i))), title: "J\(i)"), now: t0)
        }
        h.e.lateCause = .clockJump
        try h.e.advance(to: t0.adding(seconds: 86_400), mode: .wallClock, maxBatches: 1)
        XCTAssertTrue(h.e.isAdvancing)
        XCTAssertEqual(h.e.lateCause, .clockJump, "still this catch-up's")
        while h.e.isAdvancing { try h.e.advance(to: t0.adding(seconds: 86_400), mode: .wallClock, maxBatches: 1) }
        XCTAssertEqual(h.e.lateCause, .delayed)
        XCTAssertTrue(summaries(h).allSatisfy { $0.hasSuffix("reminders the clock skipped past") }, "\(summaries(h))")
    }
}
