import Foundation
import SchedCalendar
@testable import Scheduler
import ScheddService
import SystemZones
import XCTest

/// The daemon's bus-free parts on their own (issue 17 item 1), over a real SQLite store with a fake
/// clock and loop triggers the test runs by hand: GroupCommit answers nothing before its commit and
/// every waiting call after it; the Service flushes waiting writes before any other call; Delivery
/// answers a clock move only after its last slice; ServiceClock refuses to move the real clock;
/// StorageMonitor reports a failure's errno from its typed cause and then the recovery; a Track's
/// answer is bounded. The same parts run in the daemon (BoundedCallsTests, DaemonBasicsTests) and in
/// the dispatch fuzzer.
final class ServicePartsTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-parts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private let start = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    private let caller = Caller(app: Engine.defaultApp, sandboxed: false)

    private func parts(fake: Bool = true, looped: Set<LoopPriority> = []) throws -> ServiceParts {
        try ServiceParts(databasePath: directory + "/s.db", start: start, fake: fake, looped: looped)
    }

    private func push(_ id: String, at: String = "2026-03-08T06:00:00Z", cancelOn: String = "ev") -> SchedulerCall {
        .push(#"{"bk":{"local":{"id":"\#(id)","at":"\#(at)","title":"T","cancelOn":["\#(cancelOn)"]}}}"#)
    }

    /// Serves `call` and returns its answers so far (none while it waits).
    private func serve(_ p: ServiceParts, _ call: SchedulerCall, caller: Caller? = nil) -> () -> [Result<CallAnswer, ServiceFailure>] {
        p.serve(call, caller: caller ?? self.caller)
    }

    func testGroupCommit_answersNothingBeforeItsCommit_andEveryWaitingCallAfterIt() throws {
        let p = try parts(looped: [.groupCommit])
        let trigger = try XCTUnwrap(p.loop.triggers[.groupCommit])
        let answers = (0..<3).map { serve(p, push("run_1:\($0)")) }
        XCTAssertTrue(answers.allSatisfy { $0().isEmpty }, "no answer before the commit")
        XCTAssertEqual(p.group.waitingCount, 3)
        XCTAssertEqual(p.engine.pendingCount, 0, "nothing applied before the commit")
        XCTAssertGreaterThan(trigger.pulls, 0)
        p.group.flush()
        XCTAssertEqual(p.engine.pendingCount, 3)
        for answer in answers {
            guard case .success(.string(let text))? = answer().first, answer().count == 1 else { return XCTFail("\(answer())") }
            XCTAssertTrue(text.contains("scheduled"), text)
        }
        XCTAssertEqual(p.group.waitingCount, 0)
        _ = serve(p, push("run_2:a"))
        p.group.flush()
        p.group.flush()  // nothing waiting: no commit
        XCTAssertEqual(p.group.statistics.commits, 2)
        XCTAssertEqual(p.group.statistics.summary, "4 calls in 2 commits (2.0 calls per commit, largest 3; by size 1:1 3:1)")
    }

    func testService_flushesWaitingWritesBeforeAnyOtherCall_andRejectsABadPushAtOnce() throws {
        let p = try parts(looped: [.groupCommit])
        let queued = serve(p, push("run_1:a"))
        let bad = serve(p, .push("{}"))
        guard case .failure(let failure)? = bad().first else { return XCTFail("a bad push waits: \(bad())") }
        XCTAssertEqual(failure.name, .invalidPush)
        XCTAssertTrue(queued().isEmpty)
        let count = serve(p, .pendingCount)
        XCTAssertEqual(queued().count, 1, "the waiting push was committed first")
        XCTAssertEqual(count().first.flatMap { try? $0.get() }, .count(1), "and the count sees it")
    }

    /// The daemon reads the clocks for a resume or a step before each delivery of what is due (its
    /// `SleepWatch.tellLateCause`), so the catch-up is worded by its cause: the delivery tells it first,
    /// while everything is still due, and only when something is.
    func testDelivery_tellsItsEventsBeforeEachDeliveryOfWhatIsDue_andOnlyThen() throws {
        final class Seen { var pendingAtCall: [Int] = []; var engine: Engine? }
        let seen = Seen()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start,
                                 delivering: { seen.pendingAtCall.append(seen.engine?.pendingCount ?? -1) })
        seen.engine = p.engine
        for i in 1...4 { XCTAssertEqual(serve(p, push("run_3:\(i)"))().count, 1) }
        XCTAssertEqual(seen.pendingAtCall, [], "nothing due yet: no delivery")
        p.clock.fake?.set(start.adding(seconds: 7200))  // past 06:00, without the clock's own delivery
        p.delivery.settle()
        XCTAssertEqual(seen.pendingAtCall, [4], "told once, before the four were delivered")
        XCTAssertEqual(p.engine.pendingCount, 0)
        p.delivery.settle()
        XCTAssertEqual(seen.pendingAtCall, [4], "nothing due: not told again")
    }

    func testDelivery_answersAClockMoveAfterItsLastSlice() throws {
        let p = try parts(looped: [.delivery])
        // More due entries than one slice decides (Engine.firingBatchSize per slice).
        let texts = (0..<(Engine.firingBatchSize * 2 + 5)).map { #"{"bk":{"local":{"id":"run_2:\#($0)","at":"2026-03-08T05:30:00Z","title":"T"}}}"# }
        XCTAssertEqual(serve(p, .pushBatch(texts))().count, 1)
        let moved = serve(p, .clockAdvance(microseconds: 3_600_000_000))
        XCTAssertTrue(moved().isEmpty, "answered only when the delivery is done")
        XCTAssertTrue(p.delivery.isDelivering)
        var rounds = 0
        while p.delivery.isDelivering && rounds < 100 { p.delivery.continueDelivery(); rounds += 1 }
        XCTAssertGreaterThanOrEqual(rounds, 2)
        guard case .success(.string(let clock))? = moved().first else { return XCTFail("\(moved())") }
        XCTAssertTrue(clock.contains("2026-03-08T06:00:00Z"), clock)
        XCTAssertEqual(p.engine.pendingCount, 0)
    }

    func testClock_refusesToMoveTheRealClock_andCallsNeedACaller() throws {
        let p = try parts(fake: false)
        guard case .failure(let failure)? = serve(p, .clockAdvance(microseconds: 1))().first else { return XCTFail() }
        XCTAssertEqual(failure.name, .notFakeClock)
        final class Answers { var list: [Result<CallAnswer, ServiceFailure>] = [] }
        let answers = Answers()
        p.service.serve(.pendingCount, caller: nil) { answers.list.append($0) }
        guard case .failure(let noCaller)? = answers.list.first else { return XCTFail() }
        XCTAssertEqual(noCaller.name, .usage)
        guard case .failure(let denied)? = serve(p, .pendingCountAllApps, caller: Caller(app: "org.example.A", sandboxed: true))().first
        else { return XCTFail() }
        XCTAssertEqual(denied.name, .accessDenied)
    }

    func testStorageMonitor_reportsTheErrnoOfTheTypedCause_thenTheRecovery() throws {
        let p = try parts()
        let cause = StoreError(.io, "COMMIT: database or disk is full", sqliteCode: .full)
        p.storage.failed("Push", ServiceFailure(.storage, cause.message, storeCause: cause), backOff: true)
        XCTAssertTrue(p.storage.isFailing)
        XCTAssertFalse(p.storage.mayFire(at: p.clock.now), "a failed firing backs off")
        XCTAssertEqual(p.reports().count, 1)
        XCTAssertTrue(p.reports()[0].1)
        XCTAssertTrue(p.reports()[0].0.notify?.hasSuffix("ERRNO=\(ENOSPC)") == true, "\(p.reports())")
        p.storage.succeeded()
        XCTAssertFalse(p.storage.isFailing)
        XCTAssertEqual(p.reports().last?.0.notify, "STATUS=Serving\nERRNO=0")
    }

    func testTrack_answersACountABoundedListAndMore_andAnnouncesAfterTheCommit() throws {
        let p = try parts()
        let n = ReplyBounds.maxRows + 500
        let texts = (0..<n).map { #"{"bk":{"local":{"id":"run_3:\#($0)","at":"2026-03-09T06:00:00Z","title":"T","cancelOn":["big"]}}}"# }
        XCTAssertEqual(serve(p, .pushBatch(texts))().count, 1)
        let answer = serve(p, .track(event: "big", data: nil))
        guard case .success(.cancelled(let count, let ids, let more))? = answer().first else { return XCTFail("\(answer())") }
        XCTAssertEqual(Int(count), n)
        XCTAssertEqual(ids.count, Engine.cancelFirstSlice, "the first slice is listed")
        XCTAssertTrue(more)
        XCTAssertEqual(p.recorder.announced.last?.ids.count, Engine.cancelFirstSlice, "the ids cancelled at once")
        XCTAssertEqual(p.recorder.announced.last?.unlisted, n - Engine.cancelFirstSlice, "and how many the job covers")
        XCTAssertEqual(p.recorder.announced.last?.reason, "event:big")
        XCTAssertEqual(try p.engine.pendingCount(app: nil), 0)
        while try p.engine.cancelSlice(now: p.clock.now) != nil {}
        XCTAssertEqual(p.engine.pendingCount, 0, "the job cancelled the rest")
    }

    /// A schedule a cancellation job still covers is cancelled for every caller, though it stays in the
    /// wheel until its slice: `ClockNext` waits for the jobs (its answer comes after their last slice) and
    /// then stops where something is really due — not at the covered schedules' 06:00, where nothing shows.
    func testClockNext_waitsForTheCancellationJobs_andStopsWhereSomethingIsDue() throws {
        let p = try parts(looped: [.cancelSlices])
        let trigger = try XCTUnwrap(p.loop.triggers[.cancelSlices])
        let covered = Engine.cancelFirstSlice + 350
        let texts = (0..<covered).map { #"{"bk":{"local":{"id":"c:\#($0)","at":"2026-03-08T06:00:00Z","title":"T","cancelOn":["ev"]}}}"# }
        XCTAssertEqual(serve(p, .pushBatch(texts))().count, 1)
        XCTAssertEqual(serve(p, push("u", at: "2026-03-08T07:00:00Z", cancelOn: "other"))().count, 1)
        guard case .success(.cancelled(let count, _, true))? = serve(p, .track(event: "ev", data: nil))().first else {
            return XCTFail("the track answers at once, with more to come")
        }
        XCTAssertEqual(Int(count), covered)
        XCTAssertTrue(p.engine.hasCancelJobs, "350 are left to a job")
        let next = serve(p, .clockNext)
        XCTAssertTrue(next().isEmpty, "the clock waits for the job")
        XCTAssertEqual(p.clock.now, start)
        var slices = 0
        while trigger.pulls > slices, slices < 100 {
            slices += 1
            p.slicing.continueSlicing()
        }
        XCTAssertFalse(p.engine.hasCancelJobs)
        guard case .success(.string(let json))? = next().first, next().count == 1 else { return XCTFail("\(next())") }
        XCTAssertEqual(p.clock.now, Instant(seconds: 1_772_953_200), "07:00, where u is due: \(json)")
        XCTAssertEqual(p.engine.pendingCount, 0, "u was shown; the covered ones are cancelled, none shown")
        XCTAssertEqual(p.recorder.announced.first?.unlisted, 350)
    }

}
