import Foundation
import XCTest

/// The store's bounds and checks through the real daemon (issue 19, issue 22 item 5): the per-app byte
/// quota, the integrity check owed after an unclean shutdown (and only then), and `schedd check`.
final class StoreLimitsEndToEndTests: XCTestCase {
    static let t0 = "2026-03-08T05:00:00Z"

    func bodyPush(_ id: String, bytes: Int) -> String {
        localPush(id: id, at: "2026-03-08T06:00:00Z", extra: "\"body\":\"\(String(repeating: "b", count: bytes))\"")
    }

    /// Over `--max-bytes-per-app` a push is rejected naming that bound (not the count); room comes back
    /// when a schedule goes.
    func testByteQuota_rejectsThePushOverIt_namingTheBytes() throws {
        let h = try ScheddHarness(fakeClock: Self.t0, notifierArguments: ["--notifier", "stdout", "--max-bytes-per-app", "4096"])
        defer { h.tearDown() }
        let lines = [bodyPush("b1", bytes: 1500), bodyPush("b2", bytes: 1500), bodyPush("b3", bytes: 1500),
                     #"{"bk":{"cancel":{"id":"b1"}}}"#, bodyPush("b4", bytes: 1500)]
        let r = try h.cli(["push", "-", "--json"], stdin: lines.joined(separator: "\n"))
        XCTAssertEqual(r.status, 1, "a rejected line makes the exit 1")
        let answers = r.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 5, r.stdout)
        XCTAssertEqual(answers[0]["status"] as? String, "scheduled")
        XCTAssertEqual(answers[1]["status"] as? String, "scheduled")
        let error = answers[2]["error"] as? String ?? ""
        XCTAssertTrue(error.contains("max-bytes-per-app 4096"), "\(answers[2])")
        XCTAssertFalse(error.contains("max-pending-per-app"), "the byte bound is named, not the count: \(error)")
        XCTAssertEqual(answers[3]["status"] as? String, "cancelled")
        XCTAssertEqual(answers[4]["status"] as? String, "scheduled", "room again after the cancel")
        XCTAssertEqual(Set(try h.list().compactMap { $0["id"] as? String }), ["b2", "b4"])
        let other = try h.cli(["push", "-", "--json", "--app", "org.example.Other"], stdin: lines[2])
        XCTAssertEqual(other.status, 0, "the byte quota is per app: \(other.stdout) \(other.stderr)")
        let bad = try runProcess(Build.schedd, ["run", "--max-bytes-per-app", "12", "--bus", h.bus.address])
        XCTAssertEqual(bad.status, 2, "below 1024 is a usage error")
        XCTAssertTrue(bad.stderr.contains("--max-bytes-per-app"), bad.stderr)
    }

    /// After SIGKILL the next start checks the database in the background (and still becomes READY);
    /// after a clean stop it does not. `schedd check` works while the daemon runs.
    func testIntegrityCheck_onlyAfterAnUncleanShutdown() throws {
        let h = try ScheddHarness(fakeClock: Self.t0)
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "a", at: "2026-03-08T06:00:00Z"))
        h.killDaemon()
        try h.startDaemon(fakeClock: Self.t0)
        XCTAssertTrue(waitUntil(30) { h.daemonStderr.contains("integrity check of \(h.databasePath): ok") },
                      h.daemonStderr)
        XCTAssertTrue(h.daemonStderr.contains("did not close"), h.daemonStderr)
        XCTAssertEqual(try h.list().compactMap { $0["id"] as? String }, ["a"])
        h.stopDaemon()
        try h.startDaemon(fakeClock: Self.t0)
        _ = try h.list()
        XCTAssertFalse(h.daemonStderr.contains("integrity check"), "closed cleanly: no check owed: \(h.daemonStderr)")
        let check = try h.cli(["check", "--db", h.databasePath])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertEqual(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(h.databasePath): ok")
    }
}
