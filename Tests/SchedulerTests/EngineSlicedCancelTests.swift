import SchedCalendar
import XCTest
@testable import Scheduler

/// Sliced cancellation on the real SQLite store (issue 20 item 3; docs/daemon-parts.md "Sliced
/// cancellation"): a Track or CancelRun over more than one slice answers the exact count and the first
/// slice, and everything covered behaves as cancelled from the answer on — it never fires, never lists,
/// is not counted, blocks a push under its id — while a schedule stored after the call is not covered;
/// the job survives a crash and its history ends complete, one record per schedule.
final class EngineSlicedCancelTests: XCTestCase {
    private let t0 = utc(2026, 3, 1, 12)

    /// `count` schedules `prefix0`…, due one second apart from `t0 + start` s, with `cancelOn`.
    private func load(_ h: EngineHarness, _ prefix: String, _ count: Int, start: Int64 = 60, cancelOn: [String]) throws {
        let pushes = (0..<count).map {
            pushLocal(makeLocal(prefix + String($0), atFixed(t0.adding(seconds: start + Int64($0))), cancelOn: cancelOn))
        }
        _ = try h.e.pushBatch(pushes, now: t0)
    }

    /// Runs slices until no job is left; returns how many ran.
    @discardableResult
    private func finishJobs(_ h: EngineHarness, now: Instant) throws -> Int {
        var slices = 0
        while try h.e.cancelSlice(now: now) != nil { slices += 1 }
        XCTAssertFalse(h.e.hasCancelJobs)
        XCTAssertEqual(try h.e.cancelJobs(), [])
        return slices
    }

    private func cancelRecords(_ h: EngineHarness) throws -> [HistoryRecord] {
        try h.e.history(limit: 100_000).filter { $0.event == .cancelled }
    }

    func testTrackOverMoreThanASlice_coveredNeverListNorFire_andAPushAfterTheTrackIsKept() throws {
        let h = try EngineHarness(now: t0)
        try load(h, "b:", 2_600, cancelOn: ["big"])
        try load(h, "o:", 3, start: 30, cancelOn: [])
        // Stored last (the largest key) and due first: the first slice removes it, and SQLite alone would
        // give the next push its key again.
        try h.push(makeLocal("b:first", atFixed(t0.adding(seconds: 1)), cancelOn: ["big"]), now: t0)
        let answer = try h.e.trackReporting(event: "big", dataJSON: nil, now: t0)
        let first = Engine.cancelFirstSlice
        XCTAssertEqual(answer.cancelled, ["b:first"] + (0..<first - 1).map { "b:\($0)" }, "the first slice, in due order")
        XCTAssertEqual(answer.cancelled.count + answer.unlisted, 2_601, "the exact count: the listed + the job's")
        XCTAssertTrue(h.e.hasCancelJobs)

        // Observably cancelled at the answer, though the job has not run one slice.
        XCTAssertEqual(try h.e.pendingCount(app: Engine.defaultApp), 3)
        XCTAssertEqual(try h.e.list(limit: nil).map(\.id), ["o:0", "o:1", "o:2"])
        XCTAssertEqual(try h.e.listPage(after: nil, limit: 10).map(\.schedule.id), ["o:0", "o:1", "o:2"])
        XCTAssertEqual(try h.e.list(app: nil, limit: 10).map(\.id), ["o:0", "o:1", "o:2"], "all apps too")

        // Stored after the track: not covered, although it names the event.
        XCTAssertEqual(try h.push(makeLocal("late", atFixed(t0.adding(seconds: 10_000)), cancelOn: ["big"]), now: t0).status,
                       .scheduled)
        // A covered id is blocked by the tombstone it gets; a cancel of one finds it already cancelled.
        XCTAssertEqual(try h.push(makeLocal("b:2000", atFixed(t0.adding(seconds: 99)), title: "new"), now: t0).status,
                       .cancelled)
        XCTAssertEqual(try h.e.cancel(id: "b:2001", now: t0), [])
        let tombstone = try h.e.blockingTombstone(id: "b:2002")
        XCTAssertEqual(tombstone?.reason, "event:big", "a covered id is blocked by the tombstone its slice leaves")
        XCTAssertEqual(tombstone?.at, t0)

        // Due while the job is still under way: covered ones are cancelled, not fired.
        try h.e.advance(to: t0.adding(seconds: 20_000), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["o:0", "o:1", "o:2", "late"])
        XCTAssertEqual(try h.e.list(limit: nil).map(\.id), [])
        try finishJobs(h, now: t0.adding(seconds: 20_000))

        let cancelled = try cancelRecords(h)
        XCTAssertEqual(cancelled.count, 2_601, "one record per covered schedule")
        XCTAssertTrue(Set(cancelled.map(\.id)) == Set((0..<2_600).map { "b:\($0)" } + ["b:first"]), "each covered id, once")
        XCTAssertTrue(cancelled.allSatisfy { $0.reason == "event:big" && $0.at == t0 }, "the track's reason and time")
        XCTAssertEqual(try h.e.pendingCount(app: nil), 0)
    }

    func testKillMidJob_restartResumesAndHistoryIsCompleteWithoutDuplicates() throws {
        let h = try EngineHarness(now: t0)
        try load(h, "b:", 1_800, cancelOn: ["big"])
        XCTAssertEqual(try h.e.trackReporting(event: "big", dataJSON: nil, now: t0).unlisted, 1_800 - Engine.cancelFirstSlice)
        XCTAssertNotNil(try h.e.cancelSlice(now: t0))
        try h.crashAndReopen(now: t0)
        XCTAssertTrue(h.e.hasCancelJobs, "the job survived the crash")
        XCTAssertEqual(try h.e.cancelJobs().map(\.remaining), [1_800 - Engine.cancelFirstSlice - Engine.cancelSliceSize])
        XCTAssertEqual(try h.e.pendingCount(app: nil), 0)
        XCTAssertGreaterThan(try finishJobs(h, now: t0), 0)
        let cancelled = try cancelRecords(h)
        XCTAssertEqual(cancelled.count, 1_800)
        XCTAssertEqual(Set(cancelled.map(\.id)).count, 1_800, "no schedule cancelled twice")
        try h.e.advance(to: t0.adding(seconds: 10_000), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), [])
    }

    func testCancelRunOverMoreThanASlice_isSliced_andTheRunTombstoneBlocksLaterPushes() throws {
        let h = try EngineHarness(now: t0)
        try load(h, "r:", 1_500, cancelOn: [])
        try load(h, "keep:", 2, cancelOn: [])
        let answer = try h.e.cancelReporting(run: "r", now: t0)
        XCTAssertEqual(answer.cancelled.count, Engine.cancelFirstSlice)
        XCTAssertEqual(answer.unlisted, 1_500 - Engine.cancelFirstSlice)
        XCTAssertEqual(try h.e.pendingCount(app: nil), 2)
        XCTAssertEqual(try h.e.list(limit: nil).map(\.id), ["keep:0", "keep:1"])
        XCTAssertEqual(try h.push(makeLocal("r:new", atFixed(t0.adding(seconds: 70))), now: t0).status, .cancelled)
        try finishJobs(h, now: t0)
        XCTAssertEqual(Set(try cancelRecords(h).map(\.id)).count, 1_500)
        XCTAssertTrue(try cancelRecords(h).allSatisfy { $0.reason == "run" })
    }

    /// A second job covering schedules of the first counts only its own: an older job owns what it covers.
    func testOverlappingJobs_countExactly_andTheOlderJobOwnsWhatBothCover() throws {
        let h = try EngineHarness(now: t0)
        try load(h, "ab:", 1_500, cancelOn: ["a", "b"])
        try load(h, "b:", 1_200, start: 5_000, cancelOn: ["b"])
        let first = try h.e.trackReporting(event: "a", dataJSON: nil, now: t0)
        XCTAssertEqual(first.cancelled.count + first.unlisted, 1_500)
        let second = try h.e.trackReporting(event: "b", dataJSON: nil, now: t0.adding(seconds: 1))
        XCTAssertEqual(second.cancelled.count + second.unlisted, 1_200, "the 1,500 of the first job are not counted again")
        XCTAssertEqual(second.cancelled.first, "b:0")
        XCTAssertEqual(try h.e.pendingCount(app: nil), 0)
        try finishJobs(h, now: t0)
        let records = try cancelRecords(h)
        XCTAssertEqual(records.count, 2_700)
        XCTAssertTrue(records.filter { $0.id.hasPrefix("ab:") }.allSatisfy { $0.reason == "event:a" })
        XCTAssertTrue(records.filter { $0.id.hasPrefix("b:") }.allSatisfy { $0.reason == "event:b" })
    }
}
