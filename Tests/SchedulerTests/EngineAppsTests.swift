import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §8 in the engine: a namespace per app, the per-app quota, snooze (durable, cancelled with
/// its schedule), and the extras carried to the notifier — on the SQLite store, restarts included.
final class EngineAppsTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let a = "org.example.A", b = "org.example.B"

    func testTwoAppsShareIdsRunsAndEvents_withoutTouchingEachOther() throws {
        let h = try EngineHarness(now: t0)
        let local = makeLocal("run_1:a", atFixed(t0.adding(seconds: 600)), cancelOn: ["checkout"])
        XCTAssertEqual(try h.e.push(pushLocal(local), app: a, now: t0).last?.status, .scheduled)
        XCTAssertEqual(try h.e.push(pushLocal(local), app: b, now: t0).last?.status, .scheduled, "same id, other app")
        XCTAssertEqual(try h.e.push(pushLocal(local), app: a, now: t0).last?.status, .duplicate)
        XCTAssertEqual(try h.e.track(event: "checkout", app: a, dataJSON: nil, now: t0), ["run_1:a"])
        XCTAssertEqual(try h.e.list(app: a, limit: nil).map(\.id), [])
        XCTAssertEqual(try h.e.list(app: b, limit: nil).map(\.id), ["run_1:a"], "track from A cancels nothing of B")
        // A's tombstone blocks A only.
        XCTAssertEqual(try h.e.push(pushLocal(makeLocal("run_1:a", atFixed(t0.adding(seconds: 900)))), app: a, now: t0).last?.status,
                       .cancelled)
        XCTAssertEqual(try h.e.cancel(run: "run_1", app: a, now: t0), [])
        XCTAssertEqual(try h.e.list(app: nil, limit: nil).map(\.app), [b])
        try h.restart(now: t0)
        _ = try h.e.advance(to: t0.adding(seconds: 700), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map { "\($0.app) \($0.id)" }, ["\(b) run_1:a"])
        XCTAssertEqual(try h.e.history(app: b, limit: 10).map(\.event), [.fired])
        XCTAssertEqual(try h.e.history(app: a, limit: 10).map(\.event), [.cancelled])
        XCTAssertEqual(Set(try h.e.history(app: nil, limit: 10).map(\.app)), [a, b])
    }

    func testQuota_rejectsThePushOverTheBound_andNothingOfItIsStored() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let engine = try Engine(databasePath: dir + "/q.db", notifier: ScriptedNotifier(), deviceZone: .utc,
                                zones: ZoneDatabase.shared,
                                maxPendingPerApp: 2, now: t0)
        defer { engine.close() }
        let due = atFixed(t0.adding(seconds: 600))
        for id in ["q1", "q2"] { _ = try engine.push(pushLocal(makeLocal(id, due)), app: a, now: t0) }
        // A push with a cancel and an over-quota schedule: rejected whole, its cancel included.
        var both = pushLocal(makeLocal("q3", due))
        both.cancel = .id("other")
        XCTAssertThrowsError(try engine.push(both, app: a, now: t0)) { error in
            XCTAssertEqual((error as? EngineError)?.kind, .quotaExceeded)
            XCTAssertTrue("\(error)".contains("max-pending-per-app 2"), "\(error)")
        }
        XCTAssertEqual(try engine.list(app: a, limit: nil).map(\.id), ["q1", "q2"])
        XCTAssertFalse(try engine.history(app: a, limit: 10).contains { $0.event == .cancelled }, "the cancel was undone too")
        // Replacing and duplicates add nothing and pass; another app has its own quota.
        XCTAssertEqual(try engine.push(pushLocal(makeLocal("q1", atFixed(t0.adding(seconds: 900)))), app: a, now: t0).last?.status,
                       .replaced)
        XCTAssertEqual(try engine.push(pushLocal(makeLocal("q3", due)), app: b, now: t0).last?.status, .scheduled)
        // pushEach: only the line over the bound is rejected; a cancel later in the batch makes room.
        let results = try engine.pushEach([pushLocal(makeLocal("q4", due)), Push(cancel: .id("q2")), pushLocal(makeLocal("q5", due))],
                                          app: a, now: t0)
        guard case .failure(let error) = results[0] else { return XCTFail("q4 over the quota: \(results)") }
        XCTAssertEqual(error.kind, .quotaExceeded)
        guard case .success = results[1], case .success(let last) = results[2] else { return XCTFail("\(results)") }
        XCTAssertEqual(last.last?.status, .scheduled)
        XCTAssertEqual(try engine.list(app: a, limit: nil).map(\.id).sorted(), ["q1", "q5"])
    }

    func testSnooze_showsAgainAfterThatLong_survivesARestart_andIsCancelledWithItsSchedule() throws {
        let h = try EngineHarness(now: t0)
        var local = makeLocal("run_1:s", atFixed(t0.adding(seconds: 60)))
        local.snoozeSeconds = [600]
        var push = pushLocal(local)
        push.extras.deepLink = "app://s"
        _ = try h.e.push(push, app: a, now: t0)
        _ = try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        let shown = try XCTUnwrap(h.notifier.shown.first)
        XCTAssertEqual(shown.extras, NotificationExtras(deepLink: "app://s", snoozeSeconds: [600]), "extras reach the notifier")
        try h.e.snooze(shown, seconds: 600, now: t0.adding(seconds: 90))
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 690))
        try h.restart(now: t0.adding(seconds: 100))
        XCTAssertEqual(h.e.nextDue, t0.adding(seconds: 690), "the snooze survives a restart")
        _ = try h.e.advance(to: t0.adding(seconds: 700), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.count, 2)
        XCTAssertEqual(h.notifier.shown.last?.extras.deepLink, "app://s")
        let events = try h.e.history(app: a, limit: 10)
        XCTAssertEqual(events.map(\.event), [.fired, .snoozed, .fired])
        XCTAssertEqual(events[1].reason, "snooze:600")
        XCTAssertEqual(events[2].reason, "snoozed")

        // Snoozed again, then the schedule is cancelled: the snoozed one goes too.
        try h.e.snooze(shown, seconds: 600, now: t0.adding(seconds: 800))
        XCTAssertEqual(try h.e.cancel(id: "run_1:s", app: a, now: t0.adding(seconds: 810)), [])
        XCTAssertNil(h.e.nextDue)
        _ = try h.e.advance(to: t0.adding(seconds: 3000), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.count, 2, "a cancelled snooze is not shown")
        XCTAssertThrowsError(try h.e.snooze(shown, seconds: 59, now: t0)) { error in
            XCTAssertEqual((error as? EngineError)?.kind, .invalidArgument)
        }
    }
}
