import XCTest
@testable import ScheddApps

final class AppActivationTests: XCTestCase {
    let app = try! AppID(validating: "org.example.Re-minders")
    let dbusEntry = DesktopEntry(path: "/a/org.example.Re-minders.desktop", name: "Reminders", icon: nil,
                                 exec: "reminders %U", dbusActivatable: true)
    let execEntry = DesktopEntry(path: "/a/org.example.Re-minders.desktop", name: "Reminders", icon: nil,
                                 exec: "reminders --open %U", dbusActivatable: false)
    let token = ["activation-token": "tok", "desktop-startup-id": "tok"]

    func testDBusActivatable() {
        let path = "/org/example/Re_minders"
        XCTAssertEqual(AppActivation.plan(app: app, entry: dbusEntry, invocation: .body, deepLink: "r://1",
                                          action: ("show", "{\"n\":1}"), activationToken: "tok"),
                       .call(busName: app.rawValue, objectPath: path, .activateAction(name: "show", parameterJSON: "{\"n\":1}"), platformData: token))
        XCTAssertEqual(AppActivation.plan(app: app, entry: dbusEntry, invocation: .body, deepLink: "r://1",
                                          action: nil, activationToken: "tok"),
                       .call(busName: app.rawValue, objectPath: path, .open(uris: ["r://1"]), platformData: token))
        XCTAssertEqual(AppActivation.plan(app: app, entry: dbusEntry, invocation: .body, deepLink: nil,
                                          action: nil, activationToken: nil),
                       .call(busName: app.rawValue, objectPath: path, .activate, platformData: [:]))
        XCTAssertEqual(AppActivation.plan(app: app, entry: dbusEntry, invocation: .button("later"), deepLink: "r://1",
                                          action: ("show", nil), activationToken: "tok"),
                       .call(busName: app.rawValue, objectPath: path, .activateAction(name: "later", parameterJSON: nil), platformData: token))
    }

    func testLaunched() {
        XCTAssertEqual(AppActivation.plan(app: app, entry: execEntry, invocation: .body, deepLink: "r://1",
                                          action: nil, activationToken: "tok"),
                       .launch(arguments: ["reminders", "--open", "r://1"],
                               environment: ["XDG_ACTIVATION_TOKEN": "tok", "DESKTOP_STARTUP_ID": "tok"]))
        XCTAssertEqual(AppActivation.plan(app: app, entry: execEntry, invocation: .body, deepLink: nil,
                                          action: nil, activationToken: nil),
                       .launch(arguments: ["reminders", "--open"], environment: [:]))
        guard case .nothing = AppActivation.plan(app: app, entry: execEntry, invocation: .button("x"), deepLink: nil,
                                                 action: nil, activationToken: nil) else { return XCTFail() }
    }

    func testNothingToOpen() {
        guard case .nothing(let reason) = AppActivation.plan(app: app, entry: nil, invocation: .body, deepLink: "r://1",
                                                             action: nil, activationToken: nil) else { return XCTFail() }
        XCTAssertEqual(reason, "org.example.Re-minders has no desktop file")
        XCTAssertFalse(AppActivation.canOpen(nil))
        XCTAssertFalse(AppActivation.canOpen(DesktopEntry(path: "/p", name: "n", icon: nil, exec: nil, dbusActivatable: false)))
        XCTAssertTrue(AppActivation.canOpen(execEntry))
        XCTAssertTrue(AppActivation.canOpen(dbusEntry))
    }

    func testDescribe() {
        XCTAssertEqual(AppActivation.describe(.call(busName: "a.b", objectPath: "/a/b", .open(uris: ["r://1"]), platformData: [:])),
                       "Open([\"r://1\"])")
        XCTAssertEqual(AppActivation.describe(.call(busName: "a.b", objectPath: "/a/b", .activateAction(name: "x", parameterJSON: "{}"), platformData: [:])),
                       "ActivateAction(\"x\", [{}])")
        XCTAssertEqual(AppActivation.describe(.launch(arguments: ["a", "b"], environment: [:])), "launch a b")
    }
}

final class AppLauncherTests: XCTestCase {
    /// A real launch of the test desktop file's stand-in program: arguments and activation variables arrive.
    func testLaunch_passesArgumentsAndToken() throws {
        let log = NSTemporaryDirectory() + "schedd-launch-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/apps/record_launch.sh").path
        let launcher = AppLauncher()
        _ = try launcher.launch(arguments: [script, log, "reminders://todo/42"],
                                environment: ["XDG_ACTIVATION_TOKEN": "tok-7", "DESKTOP_STARTUP_ID": "tok-7"])
        var waited = 0
        while (try? String(contentsOfFile: log, encoding: .utf8))?.hasSuffix("\n") != true && waited < 1000 {
            usleep(10_000); waited += 1
        }
        let line = try XCTUnwrap(try? String(contentsOfFile: log, encoding: .utf8))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(json["argv"] as? [String], ["reminders://todo/42"])
        XCTAssertEqual(json["XDG_ACTIVATION_TOKEN"] as? String, "tok-7")
        XCTAssertEqual(json["DESKTOP_STARTUP_ID"] as? String, "tok-7")
        let parent = try XCTUnwrap(json["launcher_parent"] as? Int, "record_launch.sh logs its parent")
        XCTAssertNotEqual(parent, Int(getpid()), "the app is not the launcher's child (double fork)")
        XCTAssertNotEqual(json["sid"] as? Int, Int(getsid(0)), "its own session (setsid)")
    }

    func testLaunch_missingProgram_saysSo() {
        XCTAssertThrowsError(try AppLauncher().launch(arguments: ["/nonexistent/schedd-no-such-app"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("No such file or directory"), "\(error)")
        }
    }
}
