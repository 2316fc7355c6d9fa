import Foundation
import Glibc
import XCTest

/// CONTRACT §8 "Quota" against a hostile sandboxed app (fake Flatpak, real daemon with a small
/// `--max-bytes-per-app`): it fills its own byte quota and is stopped there, naming the bound; it
/// cannot go on in another app's namespace (declaring one is refused, `--app` too); the other app
/// still pushes; and a push of its own that arrives through UnifiedPush over the quota is not
/// acknowledged (the push server keeps it), nor stored.
final class IsolationQuotaTests: XCTestCase {
    static let spy = "org.example.Spy"
    static let victim = "org.example.Victim"

    func bodyPush(_ id: String, bytes: Int) -> String {
        localPush(id: id, at: "2026-03-08T06:00:00Z", extra: "\"body\":\"\(String(repeating: "x", count: bytes))\"")
    }

    func testSandboxedAppFillingItsByteQuota_isStoppedThere_andCannotSpillIntoAnotherApp() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z",
                                  notifierArguments: ["--notifier", "stdout", "--max-bytes-per-app", "16384"])
        defer { h.tearDown() }
        let distributor = try TestDistributor(address: h.bus.address, directory: h.directory)
        defer { distributor.stop() }
        let flood = (0..<40).map { bodyPush("flood:\($0)", bytes: 1000) }.joined(separator: "\n")
        let r = try runAsFlatpak(Self.spy, Build.schedd, ["push", "-", "--json", "--bus", h.bus.address], stdin: flood)
        XCTAssertEqual(r.status, 1, "some lines were refused: \(r.stderr)")
        let answers = r.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 40, r.stdout)
        let stored = answers.filter { $0["status"] as? String == "scheduled" }.count
        XCTAssertGreaterThan(stored, 0)
        XCTAssertLessThan(stored, 17, "at most 16 KiB of ~1 KiB schedules: \(stored)")
        let refusal = answers.first { $0["error"] != nil }?["error"] as? String ?? ""
        XCTAssertTrue(refusal.contains("max-bytes-per-app 16384"), refusal)
        XCTAssertEqual(try h.list(app: Self.spy).count, stored)

        // Another namespace: refused, whichever way it asks.
        let declared = try runAsFlatpak(Self.spy, Build.schedd, ["push", "-", "--json", "--app", Self.victim, "--bus", h.bus.address],
                                        stdin: bodyPush("spill", bytes: 1000))
        XCTAssertNotEqual(declared.status, 0)
        XCTAssertTrue(declared.stderr.contains("sandboxed"), declared.stderr)
        XCTAssertEqual(try h.list(app: Self.victim).count, 0, "nothing spilled into the victim's namespace")
        let victim = try h.cli(["push", "-", "--json", "--app", Self.victim], stdin: bodyPush("mine", bytes: 1000))
        XCTAssertEqual(victim.status, 0, "the victim's quota is its own: \(victim.stderr)")

        // The spy's own UnifiedPush registration: over the quota, a Message is not acknowledged.
        let registered = try runAsFlatpak(Self.spy, "/usr/bin/busctl", ["--address=\(h.bus.address)", "--json=short", "--", "call",
                                                                        "org.schedd.Scheduler1", "/org/schedd/Scheduler1",
                                                                        "org.schedd.UnifiedPush1", "Register", "ss", "", "spy"])
        XCTAssertEqual(registered.status, 0, registered.stderr)
        let registration = try XCTUnwrap(parseObject(busctlString(registered.stdout) ?? ""), registered.stdout)
        XCTAssertEqual(registration["app"] as? String, Self.spy)
        let answer = try distributor.send(bodyPush("over-the-network", bytes: 2000), to: registration, id: "q1")
        XCTAssertTrue((answer["error"] as? String ?? "").contains("QuotaExceeded"), "\(answer)")
        XCTAssertFalse(try h.list(app: Self.spy).contains { $0["id"] as? String == "over-the-network" })
    }
}
