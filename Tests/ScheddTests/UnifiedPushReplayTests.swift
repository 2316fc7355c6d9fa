import Foundation
import XCTest

/// UnifiedPush replays are no-ops (CONTRACT §8; issue 31 item 6; docs/receiving-pushes.md "Replays"): the
/// test distributor delivers the very bytes of an earlier message again — as a push server or a
/// distributor can, long after — to the real daemon on a private bus, and nothing changes: no tombstone
/// renewed, no push applied again (not even after its push digest was purged), no history record.
final class UnifiedPushReplayTests: XCTestCase {
    var harness: ScheddHarness!
    var distributor: TestDistributor!
    let app = "org.example.Replayed"

    override func setUpWithError() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        distributor = try TestDistributor(address: harness.bus.address, directory: harness.directory)
    }

    override func tearDown() {
        distributor?.stop()
        harness?.tearDown()
    }

    func acknowledgedID(_ answer: [String: Any]) -> String? {
        XCTAssertNil(answer["error"] as? String, "\(answer)")
        return (answer["reply"] as? [String: Any])?["id"] as? String
    }

    /// `schedd add --id ID --app APP`, which fails on a tombstone and says until when it blocks.
    func blockedUntil(_ id: String) throws -> String {
        let result = try harness.cli(["add", "Probe", "--in", "1h", "--id", id, "--app", app])
        XCTAssertEqual(result.status, 1, "the id is blocked: \(result.stdout) \(result.stderr)")
        return result.stderr
    }

    func testReplayedCancel_twentyDaysLater_doesNotRenewItsTombstone() throws {
        let registration = try harness.registerForPushes(app)
        let cancel = #"{"bk":{"cancel":{"id":"run_9:a"}}}"#
        XCTAssertEqual(acknowledgedID(try distributor.send(cancel, to: registration, id: "m1")), "m1")
        let before = try blockedUntil("run_9:a")
        XCTAssertTrue(before.contains("2026-03-31"), "kept 30 days from the cancel: \(before)")
        let history = try harness.history(app: app)

        try harness.advance("20d")
        XCTAssertEqual(acknowledgedID(try distributor.replay(to: registration, id: "m1")), "m1",
                       "a replay is acknowledged, so the push server drops it")
        let after = try blockedUntil("run_9:a")
        XCTAssertTrue(after.contains("2026-03-31"), "the replay renewed nothing: \(after)")
        XCTAssertFalse(after.contains("2026-04-20"), "renewed by the replay: \(after)")
        XCTAssertEqual(try harness.history(app: app).count, history.count, "no history record")
        XCTAssertTrue(harness.daemonStderr.contains("ignored a replayed push for \(app) (message m1)"), harness.daemonStderr)
    }

    func testReplayedLocal_afterItsPushDigestWasPurged_appliesNothing_whileAFreshCopyIsJudgedAsAPush() throws {
        let registration = try harness.registerForPushes(app)
        let push = localPush(id: "run_9:b", at: "2026-03-01T10:05:00Z", title: "Once")
        XCTAssertEqual(acknowledgedID(try distributor.send(push, to: registration, id: "m1")), "m1")
        try harness.advance("10min")
        XCTAssertEqual(harness.shown.map { $0["title"] as? String }, ["Once"])
        // 40 days: past the 30 days for which schedd keeps what it applied (CONTRACT §1); maintenance runs
        // hourly on the engine's clock, so the finished record and the push digest are purged.
        try harness.advance("40d")
        let history = try harness.history(app: app)
        XCTAssertEqual(history.compactMap { $0["event"] as? String }, ["fired"])

        XCTAssertEqual(acknowledgedID(try distributor.replay(to: registration, id: "m1")), "m1")
        XCTAssertEqual(try harness.history(app: app).count, history.count, "the replay left no history record")
        XCTAssertEqual(try harness.list(app: app).count, 0)
        XCTAssertTrue(harness.daemonStderr.contains("ignored a replayed push for \(app) (message m1)"), harness.daemonStderr)

        // The same content encrypted afresh (a new salt: what the app server sends when it sends again) is a
        // new message: the replay window does not hold it, and the push's own rules judge it. Its digest is
        // gone, so it is `missed` (40 days late) — exactly what the replay would have done without the window.
        XCTAssertEqual(acknowledgedID(try distributor.send(push, to: registration, id: "m2")), "m2")
        let events = try harness.history(app: app).compactMap { $0["event"] as? String }
        XCTAssertEqual(events, ["fired", "missed"], "the digest was purged, so the push applied again")
        XCTAssertEqual(harness.shown.count, 1, "shown once")
    }

    func testWindow_survivesARestart() throws {
        let registration = try harness.registerForPushes(app)
        let push = localPush(id: "run_9:d", at: "2026-03-01T10:05:00Z", title: "Once")
        XCTAssertEqual(acknowledgedID(try distributor.send(push, to: registration, id: "m1")), "m1")
        harness.stopDaemon()
        try harness.startDaemon(fakeClock: "2026-03-01T10:00:00Z")
        XCTAssertTrue(waitUntil(30) { self.distributor.registeredTokens().count == 2 }, "registered again after the restart")
        XCTAssertEqual(acknowledgedID(try distributor.replay(to: registration, id: "m1")), "m1")
        XCTAssertTrue(harness.daemonStderr.contains("ignored a replayed push for \(app) (message m1)"), harness.daemonStderr)
        XCTAssertFalse(harness.daemonStderr.contains("\"status\":\"duplicate\""), harness.daemonStderr)
    }

    func testReplayWithinTheWindow_logsNoDuplicate_andBodiesThatDoNotDecrypt_neverEnterTheWindow() throws {
        let registration = try harness.registerForPushes(app)
        let push = localPush(id: "run_9:c", at: "2026-03-01T11:00:00Z", title: "Once")
        XCTAssertEqual(acknowledgedID(try distributor.send(push, to: registration, id: "m1")), "m1")
        for n in 2...4 { XCTAssertEqual(acknowledgedID(try distributor.replay(to: registration, id: "m\(n)")), "m\(n)") }
        XCTAssertFalse(harness.daemonStderr.contains("\"status\":\"duplicate\""),
                       "the replays never reached the push: \(harness.daemonStderr)")
        XCTAssertEqual(try harness.list(app: app).count, 1)

        // Garbage is not authenticated: it stays out of the window (a distributor cannot flush the window
        // with it), and each delivery of it is a rejection again.
        let garbage = Array("not an aes128gcm body".utf8)
        for n in 1...2 { _ = try distributor.sendRaw(garbage, to: registration, id: "bad\(n)") }
        XCTAssertEqual(try harness.pushRegistrations()[app]?["rejected"] as? Int, 2)
    }
}
