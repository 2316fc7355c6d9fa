import SchedCalendar
import XCTest
@testable import Scheduler

/// Engine rules that need no time zone beyond UTC: pushes, idempotency, tombstones, late/missed, durability.
final class EngineTests: XCTestCase {
    let t0 = utc(2026, 3, 1, 12)  // 2026-03-01T12:00:00Z

    func testPush_oneShot_isScheduled_firesOnceOnTime_inDueOrder() throws {
        let h = try EngineHarness(now: t0)
        XCTAssertEqual(try h.push(makeLocal("b", atFixed(t0.adding(seconds: 120))), now: t0).status, .scheduled)
        let a = try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60))), now: t0)
        XCTAssertEqual(a.next, t0.adding(seconds: 60))
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 60))
        let fired = try h.e.advance(to: t0.adding(seconds: 600), mode: .timePassing)
        XCTAssertEqual(fired.map(\.id), ["a", "b"])
        XCTAssertEqual(fired.map(\.at), [t0.adding(seconds: 60), t0.adding(seconds: 120)])
        XCTAssertEqual(fired.map(\.lateSeconds), [0, 0])
        XCTAssertEqual(try h.e.advance(to: t0.adding(seconds: 900), mode: .timePassing), [])
        XCTAssertEqual(h.notifier.shown.map(\.id), ["a", "b"])
        XCTAssertEqual(try h.history().map(\.event), [.fired, .fired])
        XCTAssertNil(h.e.nextDue)
        XCTAssertEqual(try h.e.list(limit: nil), [])
    }

    func testDuplicate_beforeFiring_changesNothing_afterFiring_showsNothing() throws {
        let h = try EngineHarness(now: t0)
        let local = makeLocal("run_1:x", atFixed(t0.adding(seconds: 60)))
        XCTAssertEqual(try h.push(local, now: t0).status, .scheduled)
        let again = try h.push(local, now: t0.adding(seconds: 1))
        XCTAssertEqual(again.status, .duplicate)
        XCTAssertEqual(again.next, t0.adding(seconds: 60))
        try h.e.advance(to: t0.adding(seconds: 61), mode: .timePassing)
        let after = try h.push(local, now: t0.adding(seconds: 62))
        XCTAssertEqual(after.status, .duplicate)
        XCTAssertNil(after.next)
        try h.e.advance(to: t0.adding(seconds: 3600), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.count, 1)
        XCTAssertEqual(try h.events(of: "run_1:x"), [.fired])
    }

    func testReplace_differentContent_recordsReplacedWithOldDue() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("r", atFixed(t0.adding(seconds: 60)), title: "old"), now: t0, messageId: "m1")
        let outcome = try h.push(makeLocal("r", atFixed(t0.adding(seconds: 90)), title: "new"), now: t0)
        XCTAssertEqual(outcome.status, .replaced)
        XCTAssertEqual(outcome.next, t0.adding(seconds: 90))
        let replaced = try h.history().last!
        XCTAssertEqual(replaced.event, .replaced)
        XCTAssertEqual(replaced.due, t0.adding(seconds: 60))
        XCTAssertEqual(replaced.messageId, "m1")
        try h.e.advance(to: t0.adding(seconds: 100), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.title), ["new"])
    }

    func testNewContent_underIdOfFiredOneShot_isScheduledAgain() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("x", atFixed(t0.adding(seconds: 10)), title: "first"), now: t0)
        try h.e.advance(to: t0.adding(seconds: 20), mode: .timePassing)
        let second = try h.push(makeLocal("x", atFixed(t0.adding(seconds: 30)), title: "second"), now: t0.adding(seconds: 20))
        XCTAssertEqual(second.status, .scheduled)
        try h.e.advance(to: t0.adding(seconds: 40), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.title), ["first", "second"])
    }

    func testCancelById_unknownStillLeavesTombstone_thatBlocksLaterPush() throws {
        let h = try EngineHarness(now: t0)
        XCTAssertEqual(try h.e.cancel(id: "ghost", now: t0), [])
        let blocked = try h.push(makeLocal("ghost", atFixed(t0.adding(seconds: 60))), now: t0.adding(seconds: 1))
        XCTAssertEqual(blocked.status, .cancelled)
        XCTAssertNil(blocked.next)
        try h.push(makeLocal("real", atFixed(t0.adding(seconds: 60))), now: t0)
        XCTAssertEqual(try h.e.cancel(id: "real", now: t0.adding(seconds: 2)), ["real"])
        let record = try h.history().last!
        XCTAssertEqual(record.event, .cancelled)
        XCTAssertEqual(record.reason, "cli")
        XCTAssertEqual(record.due, t0.adding(seconds: 60))
        XCTAssertEqual(try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing), [])
    }

    func testCancelPushBeforeItsLocal_blocksIt_evenAcrossRestart() throws {
        let h = try EngineHarness(now: t0)
        let cancel = try h.e.push(Push(cancel: .id("run_9:a")), now: t0)
        XCTAssertEqual(cancel, [PushOutcome(id: "run_9:a", status: .cancelled, next: nil, cancelled: [], closed: [])])
        try h.restart(now: t0.adding(seconds: 5))
        XCTAssertEqual(try h.push(makeLocal("run_9:a", atFixed(t0.adding(seconds: 60))), now: t0.adding(seconds: 5)).status,
                       .cancelled)
        XCTAssertEqual(try h.e.list(limit: nil), [])
    }

    func testCancelAndLocalInOnePush_localNotBlocked_redeliveryChangesNothing() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("run_2:old", atFixed(t0.adding(seconds: 60))), now: t0)
        let combined = Push(cancel: .run("run_2"), local: makeLocal("run_2:new", atFixed(t0.adding(seconds: 90))))
        let first = try h.e.push(combined, now: t0)
        XCTAssertEqual(first.map(\.status), [.cancelled, .scheduled])
        XCTAssertEqual(first[0].cancelled, ["run_2:old"])
        let historyBefore = try h.history()
        let second = try h.e.push(combined, now: t0.adding(seconds: 1))
        XCTAssertEqual(second.map(\.status), [.cancelled, .duplicate])
        XCTAssertEqual(second[0].cancelled, [])
        XCTAssertEqual(try h.history(), historyBefore, "redelivery changes nothing")
        // The run tombstone still blocks other schedules of the run pushed on their own.
        XCTAssertEqual(try h.push(makeLocal("run_2:other", atFixed(t0.adding(seconds: 99))), now: t0).status, .cancelled)
        try h.e.advance(to: t0.adding(seconds: 100), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["run_2:new"])
    }

    func testRunCancel_matchesRunsExactly() throws {
        let h = try EngineHarness(now: t0)
        for id in ["run_4", "run_4:a", "run_4:b", "run_44:a", "run_40"] {
            try h.push(makeLocal(id, atFixed(t0.adding(seconds: 60))), now: t0)
        }
        XCTAssertEqual(Set(try h.e.cancel(run: "run_4", now: t0)), ["run_4", "run_4:a", "run_4:b"])
        XCTAssertEqual(try h.history().map(\.reason), ["run", "run", "run"])
        XCTAssertEqual(try h.push(makeLocal("run_4:c", atFixed(t0.adding(seconds: 60))), now: t0).status, .cancelled)
        XCTAssertEqual(try h.push(makeLocal("run_44:b", atFixed(t0.adding(seconds: 60))), now: t0).status, .scheduled)
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(Set(h.notifier.shown.map(\.id)), ["run_44:a", "run_40", "run_44:b"])
    }

    /// An id whose first `:` carries a combining mark ("r:\u{301}x" is one Character ":\u{301}" after
    /// "r") is still of run `r`: the run's cancellation removes it (the store matches bytes), so its
    /// tombstone must refuse it again too. A run id found by Character was "r:\u{301}x", and the
    /// cancelled schedule came back.
    func testRunOfAnId_isTheTextBeforeItsFirstColonScalar_evenWithACombiningMarkAfterIt() throws {
        XCTAssertEqual(runId(of: "r:\u{301}x"), "r")
        XCTAssertEqual(runId(of: "run_42:step2"), "run_42")
        XCTAssertEqual(runId(of: "plain"), "plain")
        XCTAssertTrue(isMember(id: "r:\u{301}x", ofRun: "r"))
        XCTAssertTrue(isMember(id: "r", ofRun: "r"))
        XCTAssertFalse(isMember(id: "r4:a", ofRun: "r"))
        XCTAssertFalse(isMember(id: "r", ofRun: "r4"))
        XCTAssertFalse(isMember(id: "r:a", ofRun: "r:a"), "a run holding ':' has no members")
        // Canonically equivalent but different bytes: the store would not match them, nor does the engine.
        XCTAssertFalse(isMember(id: "e\u{301}:a", ofRun: "\u{e9}"))

        let h = try EngineHarness(now: t0)
        let id = "r:\u{301}x"
        try h.push(makeLocal(id, atFixed(t0.adding(seconds: 60))), now: t0)
        XCTAssertEqual(try h.e.cancel(run: "r", now: t0), [id])
        XCTAssertEqual(try h.push(makeLocal(id, atFixed(t0.adding(seconds: 90))), now: t0).status, .cancelled,
                       "the run's tombstone refuses its member, changed or not")
        try h.e.advance(to: t0.adding(seconds: 90), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), [])
    }

    func testTrack_cancelsExactMatches_leavesOthers_tombstonesThem() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60)), cancelOn: ["logout", "paid"]), now: t0)
        try h.push(makeLocal("b", atFixed(t0.adding(seconds: 60)), cancelOn: ["logout-all"]), now: t0)
        try h.push(makeLocal("c", atFixed(t0.adding(seconds: 60))), now: t0)
        XCTAssertEqual(try h.e.track(event: "logout", dataJSON: nil, now: t0), ["a"])
        XCTAssertEqual(try h.e.track(event: "LOGOUT", dataJSON: nil, now: t0), [])
        let record = try h.history().last!
        XCTAssertEqual(record.reason, "event:logout")
        XCTAssertEqual(try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60)), cancelOn: ["logout", "paid"]), now: t0).status,
                       .cancelled, "an event cancellation leaves a tombstone")
        // A schedule stored after the event is not affected by it.
        try h.push(makeLocal("d", atFixed(t0.adding(seconds: 60)), cancelOn: ["logout"]), now: t0)
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(Set(h.notifier.shown.map(\.id)), ["b", "c", "d"])
    }

    func testLate_equalToGraceIsShown_beyondIsMissed_wallClock() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("edge", atFixed(t0.adding(seconds: 100)), grace: 300), now: t0)
        try h.push(makeLocal("over", atFixed(t0.adding(seconds: 99)), grace: 300), now: t0)
        try h.push(makeLocal("default", atFixed(t0.adding(seconds: 400 - 3600))), now: t0.adding(seconds: -3600))
        let fired = try h.e.advance(to: t0.adding(seconds: 400), mode: .wallClock)
        XCTAssertEqual(fired.map(\.id), ["default", "edge"])
        XCTAssertEqual(fired.map(\.lateSeconds), [3600, 300])
        XCTAssertEqual(fired.map(\.at), [t0.adding(seconds: 400), t0.adding(seconds: 400)])
        let over = try h.history().first { $0.id == "over" }!
        XCTAssertEqual(over.event, .missed)
        XCTAssertEqual(over.lateSeconds, 301)
        XCTAssertEqual(try h.push(makeLocal("over", atFixed(t0.adding(seconds: 99)), grace: 300), now: t0).status,
                       .duplicate, "a missed one-shot delivered again stays missed, silently")
    }

    func testPush_atAlreadyBeyondGrace_isMissed_andShowsNothing() throws {
        let h = try EngineHarness(now: t0)
        let outcome = try h.push(makeLocal("old", atFixed(t0.adding(seconds: -3601))), now: t0)
        XCTAssertEqual(outcome.status, .missed)
        XCTAssertNil(outcome.next)
        let onEdge = try h.push(makeLocal("edge", atFixed(t0.adding(seconds: -3600))), now: t0)
        XCTAssertEqual(onEdge.status, .scheduled)
        XCTAssertEqual(try h.history().map(\.event), [.missed])
        XCTAssertEqual(try h.e.advance(to: t0, mode: .wallClock).map(\.id), ["edge"])
    }

    func testBackwardStep_neverFiresAnythingTwice() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60))), now: t0)
        try h.e.advance(to: t0.adding(seconds: 120), mode: .wallClock)
        try h.e.advance(to: t0, mode: .wallClock)
        try h.e.advance(to: t0.adding(seconds: 200), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["a"])
    }

    func testRestart_restoresEveryPendingSchedule() throws {
        let h = try EngineHarness(now: t0)
        for i in 0..<50 { try h.push(makeLocal("s\(i)", atFixed(t0.adding(seconds: Int64(100 + i)))), now: t0) }
        try h.restart(now: t0.adding(seconds: 10))
        XCTAssertEqual(h.e.pendingCount, 50)
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 100))
        XCTAssertEqual(try h.e.list(limit: 3, offset: 1).map(\.id), ["s1", "s2", "s3"])
        let fired = try h.e.advance(to: t0.adding(seconds: 200), mode: .timePassing)
        XCTAssertEqual(fired.map(\.id), (0..<50).map { "s\($0)" })
    }

    func testAtMostOnce_firingIsDurableBeforeTheNotifierSeesIt() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60))), now: t0)
        var historyAtShow: [HistoryRecord.Event] = []
        h.notifier.onShow = { [path = h.path] _ in
            // A second connection sees only committed data.
            if let reader = try? SQLiteScheduleStore(path: path) {
                historyAtShow = (try? reader.history.records(app: Engine.defaultApp, limit: 10).map(\.event)) ?? []
                reader.close()
            }
        }
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(historyAtShow, [.fired])
    }

    func testCrashMidBatch_reopened_nothingIsShownAgain() throws {
        // Fold threshold 0: each firing shown on its own, so the crash falls between two hand-overs (folding: SleepFoldTests).
        let h = try EngineHarness(foldThreshold: 0, now: t0)
        for i in 0..<5 { try h.push(makeLocal("c\(i)", atFixed(t0.adding(seconds: Int64(60 + i)))), now: t0) }
        h.notifier.crashAfter = 2  // the process "dies" after showing two
        try h.e.advance(to: t0.adding(seconds: 70), mode: .wallClock)
        h.notifier.crashAfter = nil
        try h.crashAndReopen(now: t0.adding(seconds: 80))
        try h.e.advance(to: t0.adding(seconds: 90), mode: .wallClock)
        try h.e.advance(to: t0.adding(seconds: 5000), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["c0", "c1"], "lost displays are not repeated (at-most-once)")
        XCTAssertEqual(try h.history().map(\.event), Array(repeating: .fired, count: 5))
        XCTAssertEqual(h.e.pendingCount, 0)
    }

    func testFailedDelivery_isRecorded_andRetriedWithinGrace() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("f", atFixed(t0.adding(seconds: 60)), grace: 600), now: t0, messageId: "msg")
        try h.push(makeLocal("g", atFixed(t0.adding(seconds: 61)), grace: 10), now: t0)
        h.notifier.failure = "org.freedesktop.Notifications not on the bus"
        try h.e.advance(to: t0.adding(seconds: 61), mode: .timePassing)
        // The batch is recorded as fired before delivery; the failures are recorded after it.
        XCTAssertEqual(try h.history().map(\.event), [.fired, .fired, .failed, .failed])
        XCTAssertEqual(try h.history()[2].reason, "org.freedesktop.Notifications not on the bus")
        h.notifier.failure = nil
        try h.restart(now: t0.adding(seconds: 300))
        let retried = try h.e.retryFailed(now: t0.adding(seconds: 300))
        XCTAssertEqual(retried.map(\.id), ["f"])
        XCTAssertEqual(retried.first?.lateSeconds, 240)
        XCTAssertEqual(h.notifier.shown.map(\.messageId), ["msg"])
        // g's grace ended before the restart: maintenance at start dropped it (its history ends `failed`).
        XCTAssertEqual(try h.history().suffix(3).map(\.event), [.failed, .failed, .fired])
        XCTAssertEqual(try h.history().last?.id, "f")
        XCTAssertEqual(try h.e.retryFailed(now: t0.adding(seconds: 301)), [], "retried once only")
    }

    func testRecordInteraction_carriesMessageIdAndData() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("i", atFixed(t0.adding(seconds: 1)), dataJSON: #"{"deep":"link"}"#), now: t0,
                   messageId: "m-7")
        try h.e.advance(to: t0.adding(seconds: 1), mode: .timePassing)
        try h.e.recordInteraction(id: "i", event: .opened, reason: "action:default", now: t0.adding(seconds: 5))
        let opened = try h.history().last!
        XCTAssertEqual(opened.event, .opened)
        XCTAssertEqual(opened.reason, "action:default")
        XCTAssertEqual(opened.messageId, "m-7")
        XCTAssertEqual(opened.dataJSON, #"{"deep":"link"}"#)
        XCTAssertThrowsError(try h.e.recordInteraction(id: "i", event: .fired, reason: nil, now: t0))
    }

    func testCancel_ofShownOneShot_closesIt() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("run_3:shown", atFixed(t0.adding(seconds: 1))), now: t0)
        try h.e.advance(to: t0.adding(seconds: 1), mode: .timePassing)
        XCTAssertEqual(try h.e.cancel(run: "run_3", now: t0.adding(seconds: 2)), [])
        XCTAssertEqual(h.notifier.closed, ["run_3:shown"])
    }

    func testTombstones_blockForThirtyDays_thenArePurged() throws {
        let h = try EngineHarness(now: t0)
        _ = try h.e.cancel(id: "t", now: t0)
        let day: Int64 = 86_400
        let later = t0.adding(seconds: 29 * day)
        XCTAssertEqual(try h.push(makeLocal("t", atFixed(later.adding(seconds: 60))), now: later).status, .cancelled)
        let muchLater = t0.adding(seconds: 31 * day)
        try h.restart(now: muchLater)
        XCTAssertEqual(try h.push(makeLocal("t", atFixed(muchLater.adding(seconds: 60))), now: muchLater).status,
                       .scheduled)
    }

    func testPushBatch_unknownZone_isInvalidArgument_andNothingOfTheBatchIsApplied() throws {
        let h = try EngineHarness(now: t0)
        let good = pushLocal(makeLocal("good", atFixed(t0.adding(seconds: 60))))
        let bad = pushLocal(makeLocal("bad", atWall(wall(2026, 3, 2, 9), zone: "Nowhere/Atlantis")))
        XCTAssertThrowsError(try h.e.pushBatch([good, bad], now: t0)) { error in
            XCTAssertEqual((error as? EngineError)?.kind, .invalidArgument)
        }
        XCTAssertEqual(try h.e.list(limit: nil), [])
        XCTAssertEqual(h.e.pendingCount, 0, "the wheel is rebuilt from the rolled-back store")
        XCTAssertEqual(try h.e.push(good, now: t0).map(\.status), [.scheduled])
    }

    func testPushBatch_outcomesInOrder_oneCommit() throws {
        let h = try EngineHarness(now: t0)
        let pushes = (0..<20).map { pushLocal(makeLocal("p\($0 % 10)", atFixed(t0.adding(seconds: 60)))) }
        let outcomes = try h.e.pushBatch(pushes, now: t0)
        XCTAssertEqual(outcomes.map { $0[0].status },
                       Array(repeating: .scheduled, count: 10) + Array(repeating: .duplicate, count: 10))
        try h.restart(now: t0)
        XCTAssertEqual(h.e.pendingCount, 10)
    }
}
