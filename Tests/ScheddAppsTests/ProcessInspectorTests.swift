import XCTest
import Foundation
@testable import ScheddApps

/// The real kernel paths: a process in its own mount namespace with a `.flatpak-info` at its root
/// (the way bwrap builds a Flatpak sandbox), and a process in a real `app-….scope` cgroup.
final class ProcessInspectorTests: XCTestCase {
    func testOwnProcess_isNotSandboxed() throws {
        let facts = try ProcessInspector.facts(pid: getpid())
        XCTAssertNil(facts.flatpakInfo, "this machine's / has no .flatpak-info")
        XCTAssertNotNil(facts.cgroup)
        XCTAssertEqual(try CallerIdentity.resolve(facts, declared: nil).source, .defaultApp)
    }

    func testFakeFlatpakSandbox_isReadThroughProcRoot() throws {

        let sandbox = try FakeFlatpakProcess(appID: "org.example.Sandboxed")
        defer { sandbox.stop() }
        let facts = try ProcessInspector.facts(pid: sandbox.pid)
        XCTAssertEqual(facts.flatpakInfo.map { String(decoding: $0, as: UTF8.self) }, "[Application]\nname=org.example.Sandboxed\n")
        XCTAssertEqual(try CallerIdentity.resolve(facts, declared: nil), CallerApp(id: try AppID(validating: "org.example.Sandboxed"), source: .flatpak))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/.flatpak-info"), "nothing was created in the real root")
    }

    func testSymlinkedFlatpakInfo_isRefused() throws {

        let sandbox = try FakeFlatpakProcess(appID: "org.example.Sandboxed", asSymlinkTo: "/etc/hostname")
        defer { sandbox.stop() }
        XCTAssertThrowsError(try ProcessInspector.facts(pid: sandbox.pid)) { error in
            XCTAssertEqual((error as? CallerIdentityError)?.kind, .unattributable)
        }
    }

    func testExitedProcess_isRefused() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        XCTAssertThrowsError(try ProcessInspector.facts(pid: child.processIdentifier)) { error in
            XCTAssertEqual((error as? CallerIdentityError)?.kind, .unattributable)
        }
    }

    func testDepartedConnection_isRefused() throws {
        XCTAssertThrowsError(try ProcessInspector.facts(pid: getpid(), stillConnected: { false })) { error in
            XCTAssertTrue("\(error)".contains("left the bus"), "\(error)")
        }
    }

    func testSystemdAppScope_isReadFromProcCgroup() throws {

        let scope = try AppScopeCgroup(unit: "app-gnome-org.example.Scoped-\(getpid()).scope")
        defer { scope.remove() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        defer { child.terminate(); child.waitUntilExit() }
        try scope.add(pid: child.processIdentifier)
        let facts = try ProcessInspector.facts(pid: child.processIdentifier)
        XCTAssertEqual(try CallerIdentity.resolve(facts, declared: nil),
                       CallerApp(id: try AppID(validating: "org.example.Scoped"), source: .systemdUnit))
    }
}
