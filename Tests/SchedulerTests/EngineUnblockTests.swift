import SchedCalendar
import XCTest
@testable import Scheduler

/// `Engine.unblock` (what `schedd add --replace` calls, docs/cli.md): it lifts an id's own tombstone and
/// forgets the id's earlier pushes in that app only, so the same content schedules again — on the SQLite
/// store, whose app columns are numbers in some tables and text in others.
final class EngineUnblockTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let a = "org.example.A", b = "org.example.B"

    func testUnblock_liftsTheTombstone_andForgetsEarlierPushes_ofThatAppOnly() throws {
        let h = try EngineHarness(now: t0)
        let local = makeLocal("standup", atFixed(t0.adding(seconds: 3600)))
        for app in [a, b] {
            XCTAssertEqual(try h.e.push(pushLocal(local), app: app, now: t0).last?.status, .scheduled)
            XCTAssertEqual(try h.e.cancel(id: "standup", app: app, now: t0), ["standup"])
            XCTAssertEqual(try h.e.push(pushLocal(local), app: app, now: t0).last?.status, .cancelled, "tombstoned")
        }
        XCTAssertTrue(try h.e.unblock(id: "standup", app: a, now: t0))
        XCTAssertFalse(try h.e.unblock(id: "standup", app: a, now: t0), "nothing left to lift")
        // Lifting the tombstone is a state change (CONTRACT §5): recorded once, in that app only.
        let lifted = try h.e.history(app: a, limit: 100).filter { $0.event == .unblocked }
        XCTAssertEqual(lifted.map(\.id), ["standup"], "one record: the second unblock lifted nothing")
        XCTAssertEqual(lifted.first?.reason, "unblock")
        XCTAssertEqual(lifted.first?.due, nil)
        XCTAssertEqual(try h.e.history(app: b, limit: 100).filter { $0.event == .unblocked }.count, 0)
        XCTAssertEqual(try h.e.push(pushLocal(local), app: a, now: t0).last?.status, .scheduled,
                       "the same content is judged as the first push again")
        XCTAssertEqual(try h.e.push(pushLocal(local), app: b, now: t0).last?.status, .cancelled,
                       "another app's tombstone stays")
        try h.restart(now: t0)
        XCTAssertEqual(try h.e.push(pushLocal(local), app: a, now: t0).last?.status, .duplicate,
                       "once applied again, it is remembered again")
    }

    /// Without a tombstone, unblock still forgets the earlier pushes (`add --replace` of a superseded
    /// push): an older version is then judged new (`replaced`), not `duplicate`; nothing is recorded.
    func testUnblock_withoutATombstone_forgetsASupersededPush_andRecordsNothing() throws {
        let h = try EngineHarness(now: t0)
        let v1 = makeLocal("tea", atFixed(t0.adding(seconds: 3600)))
        let v2 = makeLocal("tea", atFixed(t0.adding(seconds: 7200)))
        XCTAssertEqual(try h.e.push(pushLocal(v1), app: a, now: t0).last?.status, .scheduled)
        XCTAssertEqual(try h.e.push(pushLocal(v2), app: a, now: t0).last?.status, .replaced)
        XCTAssertEqual(try h.e.push(pushLocal(v1), app: a, now: t0).last?.status, .duplicate, "an older version")
        XCTAssertFalse(try h.e.unblock(id: "tea", app: a, now: t0), "no tombstone to lift")
        XCTAssertEqual(try h.e.push(pushLocal(v1), app: a, now: t0).last?.status, .replaced)
        XCTAssertEqual(try h.e.history(app: a, limit: 100).filter { $0.event == .unblocked }.count, 0)
    }
}
