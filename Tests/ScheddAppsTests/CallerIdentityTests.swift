import XCTest
@testable import ScheddApps

final class CallerIdentityTests: XCTestCase {
    let flatpak = Array("[Application]\nname=org.example.Sandboxed\n".utf8)
    let scope = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Scoped-42.scope\n"
    let terminal = "0::/user.slice/user-1000.slice/session-2.scope\n"

    func resolve(_ info: [UInt8]?, _ cgroup: String?, _ declared: String?) throws -> CallerApp {
        try CallerIdentity.resolve(ProcessFacts(flatpakInfo: info, cgroup: cgroup), declared: declared)
    }

    func testTheTable() throws {
        XCTAssertEqual(try resolve(flatpak, scope, nil), CallerApp(id: try AppID(validating: "org.example.Sandboxed"), source: .flatpak))
        XCTAssertEqual(try resolve(flatpak, nil, "org.example.Sandboxed").source, .flatpak)
        XCTAssertTrue(try resolve(flatpak, nil, nil).sandboxed)
        XCTAssertEqual(try resolve(nil, scope, nil), CallerApp(id: try AppID(validating: "org.example.Scoped"), source: .systemdUnit))
        XCTAssertEqual(try resolve(nil, scope, "org.example.Other"), CallerApp(id: try AppID(validating: "org.example.Other"), source: .declared))
        XCTAssertEqual(try resolve(nil, terminal, "org.example.Other").source, .declared)
        XCTAssertEqual(try resolve(nil, terminal, nil), CallerApp(id: AppID.defaultApp, source: .defaultApp))
        XCTAssertEqual(try resolve(nil, nil, nil).id, AppID.defaultApp)
        XCTAssertFalse(try resolve(nil, scope, nil).sandboxed)
    }

    func testRefusals() {
        func kind(_ info: [UInt8]?, _ declared: String?) -> CallerIdentityError.Kind? {
            do { _ = try resolve(info, nil, declared); return nil } catch { return (error as? CallerIdentityError)?.kind }
        }
        XCTAssertEqual(kind(flatpak, "org.example.Other"), .sandboxed)
        XCTAssertEqual(kind(Array("[Application]\n".utf8), nil), .unattributable)
        XCTAssertEqual(kind(Array("[Application]\nname=bad\n".utf8), "bad"), .unattributable)
        XCTAssertEqual(kind(nil, "not-reverse-dns"), .invalidAppID)
        XCTAssertEqual(kind(nil, ""), .invalidAppID)
        do {
            _ = try resolve(flatpak, nil, "org.example.Other")
        } catch {
            XCTAssertEqual("\(error)", "the caller is the sandboxed app org.example.Sandboxed; a sandboxed app acts only as itself, not as \"org.example.Other\"")
        }
    }

    /// Issue 31 item 6: a caller whose sandbox cannot be read (another user's /proc/PID/root) counts as
    /// sandboxed: the app of its unit (or the default), no other id, no every-app calls.
    func testUnreadableSandbox_countsAsSandboxed() throws {
        var facts = ProcessFacts(flatpakInfo: nil, cgroup: "0::/user.slice/user-1001.slice/user@1001.service/app.slice/app-flatpak-org.example.Spy-42.scope\n")
        facts.sandboxUnreadable = true
        let own = try CallerIdentity.resolve(facts, declared: nil)
        XCTAssertEqual(own, CallerApp(id: try AppID(validating: "org.example.Spy"), source: .unreadableSandbox))
        XCTAssertTrue(own.sandboxed)
        XCTAssertEqual(try CallerIdentity.resolve(facts, declared: "org.example.Spy"), own)
        XCTAssertThrowsError(try CallerIdentity.resolve(facts, declared: "org.example.Victim")) { error in
            XCTAssertEqual((error as? CallerIdentityError)?.kind, .sandboxed)
        }
        facts.cgroup = nil
        XCTAssertEqual(try CallerIdentity.resolve(facts, declared: nil), CallerApp(id: AppID.defaultApp, source: .unreadableSandbox))
    }

    /// Per-user namespaces (CONTRACT §8 v3): the key of an app for each caller.
    func testAppNamespaceKeys() throws {
        let app = try AppID(validating: "org.example.Kiosk")
        XCTAssertEqual(AppNamespace.key(app: app, uid: 1000, daemonUID: 1000), "org.example.Kiosk")
        XCTAssertEqual(AppNamespace.key(app: app, uid: 0, daemonUID: 998), "org.example.Kiosk")
        XCTAssertEqual(AppNamespace.key(app: app, uid: 1001, daemonUID: 998), "u1001:org.example.Kiosk")
        XCTAssertEqual(AppNamespace.parse("u1001:org.example.Kiosk")?.uid, 1001)
        XCTAssertEqual(AppNamespace.parse("u1001:org.example.Kiosk")?.app, app)
        XCTAssertNil(AppNamespace.parse("org.example.Kiosk")?.uid)
        for bad in ["u:org.x.Y", "u1x:org.x.Y", "u99999999999:org.x.Y", "u1:nodots", "x1:org.x.Y", ""] {
            XCTAssertNil(AppNamespace.parse(bad)?.uid, bad)
        }
        XCTAssertEqual(AppNamespace.appID(of: "u7:org.example.Kiosk"), app)
    }
}
