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
}
