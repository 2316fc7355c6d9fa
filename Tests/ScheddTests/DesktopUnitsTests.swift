import Foundation
import XCTest
import TestPrerequisites

/// units/ and scripts/install.sh: every unit passes `systemd-analyze verify` without a word, the D-Bus
/// files load, and an install puts each file where systemd and D-Bus look, with its paths rewritten.
final class DesktopUnitsTests: XCTestCase {
    private func bash(_ command: String) throws -> (status: Int32, output: String) {
        try DesktopHarness.run("/bin/bash", ["-c", "cd '\(DesktopHarness.repoRoot.path)' && { \(command); } 2>&1"])
    }

    func testVerifyUnits_reportsNothing() throws {
        guard DesktopHarness.which("systemd-analyze") != nil else { throw missingReference("systemd-analyze not installed") }
        let (status, output) = try bash("Tests/Support/verify-units.sh")
        XCTAssertEqual(status, 0, output)
    }

    func testInstall_toPrefix_placesFilesAndRewritesPathsAndUser() throws {
        let prefix = NSTemporaryDirectory() + "schedd-install-\(UUID().uuidString)"
        let stage = prefix + "-stage"
        defer {
            try? FileManager.default.removeItem(atPath: prefix)
            try? FileManager.default.removeItem(atPath: stage)
        }
        let (status, output) = try bash("scripts/install.sh PREFIX=\(prefix) DESTDIR=\(stage) BINARY=/bin/true "
            + "SYSTEM_USER=kiosk-sched SYSTEM_GROUP=kiosk-callers --no-build")
        XCTAssertEqual(status, 0, output)
        func read(_ path: String) throws -> String { try String(contentsOfFile: stage + path, encoding: .utf8) }
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: stage + prefix + "/bin/schedd"))
        let user = try read(prefix + "/lib/systemd/user/schedd.service")
        XCTAssertTrue(user.contains("\nExecStart=\(prefix)/bin/schedd run --notifier desktop\n"), user)
        let system = try read(prefix + "/lib/systemd/system/schedd-system.service")
        XCTAssertTrue(system.contains("\nExecStart=\(prefix)/bin/schedd run --bus system"), system)
        XCTAssertTrue(system.contains("\nUser=kiosk-sched\n") && system.contains("\nGroup=kiosk-callers\n"), system)
        let activation = try read(prefix + "/share/dbus-1/services/org.schedd.Scheduler1.service")
        XCTAssertTrue(activation.contains("\nExec=\(prefix)/bin/schedd run"), activation)
        XCTAssertTrue(activation.contains("\nSystemdService=schedd.service\n"), activation)
        let policy = try read("/etc/dbus-1/system.d/org.schedd.Scheduler1.conf")
        XCTAssertTrue(policy.contains("<policy user=\"kiosk-sched\">"), policy)
        XCTAssertTrue(policy.contains("<policy group=\"kiosk-callers\">"), policy)
        XCTAssertFalse(policy.contains("\"schedd\""), "every schedd account name is rewritten")
    }

    func testInstall_rejectsRelativePrefix() throws {
        let (status, output) = try bash("scripts/install.sh PREFIX=relative/dir BINARY=/bin/true --no-build")
        XCTAssertEqual(status, 2, output)
        XCTAssertTrue(output.contains("PREFIX must be an absolute path"), output)
    }
}
