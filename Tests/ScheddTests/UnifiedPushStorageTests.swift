import Foundation
import Glibc
import XCTest

/// "Reply only after durable", with the disk full for real: the database on a 2 MiB tmpfs filled with
/// dd. A Message that cannot be committed is answered with the Storage error (no acknowledgement, so
/// the distributor delivers it again), nothing of it is stored, and the same message delivered again
/// once there is room is applied.
final class UnifiedPushStorageTests: XCTestCase {
    private var mountPoint = ""
    private var h: ScheddHarness?
    private var distributor: TestDistributor?

    override func setUpWithError() throws {
        guard geteuid() == 0 else { throw TestSetupError("mounting a tmpfs needs root") }
        h = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z", databaseName: "disk/schedd.db") { dir in
            let point = dir.file("disk")
            try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
            let mounted = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", point])
            guard mounted.status == 0 else { throw TestSetupError("mount tmpfs: \(mounted.stderr)") }
            self.mountPoint = point
        }
        distributor = try TestDistributor(address: h!.bus.address, directory: h!.directory)
    }

    override func tearDown() {
        distributor?.stop()
        _ = h?.stopDaemon()
        if !mountPoint.isEmpty { _ = try? runProcess("/bin/umount", [mountPoint]) }
        h?.tearDown()
    }

    func testDiskFull_messageIsNotAcknowledged_andItsRedeliveryAppliesOnceThereIsRoom() throws {
        let h = try XCTUnwrap(h), distributor = try XCTUnwrap(distributor)
        let registration = try h.registerForPushes("org.example.Reminders")
        let fill = mountPoint + "/fill"
        _ = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(fill)", "bs=64k"])
        let push = localPush(id: "full:1", at: "2026-03-01T10:05:00Z",
                             extra: "\"body\":\"\(String(repeating: "b", count: 3500))\"")
        let refused = try distributor.send(push, to: registration, id: "m1")
        XCTAssertNil(refused["reply"] as? [String: Any], "acknowledged although not durable: \(refused)")
        XCTAssertTrue((refused["error"] as? String)?.hasPrefix("org.schedd.UnifiedPush1.Error.Storage") == true, "\(refused)")
        XCTAssertTrue(h.daemonStderr.contains("not applied (the distributor will deliver it again)"), h.daemonStderr)

        try FileManager.default.removeItem(atPath: fill)
        XCTAssertEqual(try h.list(app: "org.example.Reminders").count, 0, "nothing of the refused message was stored")
        let again = try distributor.send(push, to: registration, id: "m1")
        XCTAssertEqual((again["reply"] as? [String: Any])?["id"] as? String, "m1", "\(again)")
        XCTAssertEqual(try h.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["full:1"])
        XCTAssertEqual(try h.pushRegistrations()["org.example.Reminders"]?["rejected"] as? Int, 0,
                       "a storage failure is not a rejected push")
    }
}
