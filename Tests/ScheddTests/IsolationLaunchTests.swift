import Foundation
import Glibc
import XCTest

/// CONTRACT §8 "Opening it opens the app … outside schedd's service sandbox and process tree", with the
/// real daemon (desktop notifier), the recording notification server and a desktop file whose Exec=
/// is Tests/Support/apps/record_launch.sh (it logs its argv, environment and ancestors):
/// - with a fake systemd user manager on the bus (Tests/Support/isolation/fake_systemd.py, which
///   records StartTransientUnit and runs ExecStart as its own child, as the manager would): the unit
///   name, ExecStart and Environment= are schedd's, and the app is not a descendant of schedd;
/// - without one: double fork + setsid, the app again not a descendant of schedd.
/// History `opened` says which way was used.
final class IsolationLaunchTests: XCTestCase {
    static let app = "org.example.my-app"
    var desktop: DesktopDaemon!
    var apps: TemporaryDesktopFiles { desktop.apps }
    var h: ScheddHarness { desktop.harness }
    var server: PythonService { desktop.server }
    var manager: ChildProcess?
    var launches = ""

    override func setUpWithError() throws {
        desktop = try DesktopDaemon(fakeClock: "2026-03-08T05:00:00Z") { apps in
            self.launches = apps.directory + "/launches.jsonl"
            let script = Build.supportFile("apps/record_launch.sh")
            try apps.add(Self.app, "[Desktop Entry]\nType=Application\nName=My App\nExec=\(script) \(self.launches) --open %U\n")
        }
    }

    override func tearDown() {
        manager?.terminate()
        desktop?.tearDown()
    }

    /// Pushes a notification of the app with a deep link, shows it, clicks it (with an activation
    /// token); returns what the app logged and history's `opened` record.
    func clickAndWaitForLaunch() throws -> (launched: [String: Any], opened: [String: Any]) {
        let push = #"{"bk":{"deepLink":"my://item/7","local":{"id":"n:1","at":"2026-03-08T05:01:00Z","title":"Open me"}}}"#
        XCTAssertEqual(try h.cli(["push", "-", "--app", Self.app], stdin: push).status, 0)
        try h.advance("2min")
        XCTAssertTrue(waitUntil { !self.server.calls("Notify").isEmpty })
        let sid = try XCTUnwrap(server.calls("Notify").first?["reply"] as? Int)
        try notifyControl(h.bus.address, ["EmitActivation", "uss", "\(sid)", "tok-7", "default"])
        XCTAssertTrue(waitUntil(30) { (try? String(contentsOfFile: self.launches, encoding: .utf8))?.hasSuffix("\n") == true },
                      "the app was not launched; daemon: \(h.daemonStderr)")
        let line = try XCTUnwrap(try? String(contentsOfFile: launches, encoding: .utf8))
        let launched = try XCTUnwrap(parseObject(line.trimmingCharacters(in: .whitespacesAndNewlines)))
        var opened: [String: Any]?
        XCTAssertTrue(waitUntil(30) {
            opened = (try? self.h.history(app: Self.app))?.first { $0["event"] as? String == "opened" }
            return opened != nil
        })
        return (launched, try XCTUnwrap(opened))
    }

    func daemonPid() throws -> Int { Int(try XCTUnwrap(h.daemon?.processIdentifier)) }

    func testWithASystemdUserManager_theAppRunsInATransientUnitOfItsOwn() throws {
        let log = JSONLog(h.directory.file("systemd.jsonl"))
        manager = try ChildProcess(DesktopHarness.python, [Build.supportFile("isolation/fake_systemd.py"), "--address", h.bus.address,
                                                           "--log", log.path], quiet: false)
        XCTAssertTrue(waitUntil(30) { !log.events("ready").isEmpty }, log.text)
        let (launched, opened) = try clickAndWaitForLaunch()

        let call = try XCTUnwrap(log.events("StartTransientUnit").first, log.text)
        let unit = try XCTUnwrap(call["name"] as? String)
        XCTAssertNotNil(unit.range(of: #"^app-schedd-org\.example\.my\\x2dapp@[0-9a-f]{16}\.service$"#, options: .regularExpression),
                        "XDG app naming for services (@RANDOM), the app id escaped as systemd does: \(unit)")
        XCTAssertEqual(call["mode"] as? String, "fail")
        let properties = try XCTUnwrap(call["properties"] as? [String: Any])
        let exec = try XCTUnwrap((properties["ExecStart"] as? [[Any]])?.first, "\(properties)")
        let script = Build.supportFile("apps/record_launch.sh")
        XCTAssertEqual(exec[0] as? String, script)
        XCTAssertEqual(exec[1] as? [String], [script, launches, "--open", "my://item/7"])
        let environment = try XCTUnwrap(properties["Environment"] as? [String])
        XCTAssertTrue(environment.contains("XDG_ACTIVATION_TOKEN=tok-7") && environment.contains("DESKTOP_STARTUP_ID=tok-7"),
                      "\(environment)")

        XCTAssertEqual(launched["argv"] as? [String], ["--open", "my://item/7"])
        XCTAssertEqual(launched["XDG_ACTIVATION_TOKEN"] as? String, "tok-7")
        XCTAssertNotNil(launched["INVOCATION_ID"] as? String, "started by the manager")
        let ancestors = try XCTUnwrap(launched["ancestors"] as? [Int])
        XCTAssertFalse(ancestors.contains(try daemonPid()), "the app is not a descendant of schedd: \(ancestors)")
        XCTAssertTrue(ancestors.contains(call["manager_pid"] as? Int ?? -1), "the manager started it: \(ancestors)")

        XCTAssertEqual(opened["ok"] as? Bool, true)
        XCTAssertEqual(opened["ran"] as? String, "launch \(script) \(launches) --open my://item/7 (unit \(unit))")

        // The app so started calls back from a cgroup of that unit's name: it is its own app id (on main
        // 067d7ec the unit was `…my\x2dapp-<16 hex>.service` and the caller became org.example.my-app-<hex>).
        let back = try runInAppScope(unit, Build.schedd, ["push", "-", "--bus", h.bus.address],
                                     stdin: #"{"bk":{"local":{"id":"back:1","at":"2026-03-08T06:00:00Z","title":"from the app"}}}"#)
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(try h.list(app: Self.app).compactMap { $0["id"] as? String }, ["back:1"],
                       "the opened app's own push is in its own namespace")
    }

    func testWithoutAManager_theAppIsStartedDetached_notAsSchedsChild() throws {
        let (launched, opened) = try clickAndWaitForLaunch()
        let ancestors = try XCTUnwrap(launched["ancestors"] as? [Int])
        XCTAssertFalse(ancestors.contains(try daemonPid()), "the app is not a descendant of schedd: \(ancestors)")
        XCTAssertNil(launched["INVOCATION_ID"] as? String)
        XCTAssertEqual(launched["XDG_ACTIVATION_TOKEN"] as? String, "tok-7")
        XCTAssertEqual(opened["ok"] as? Bool, true)
        let script = Build.supportFile("apps/record_launch.sh")
        XCTAssertEqual(opened["ran"] as? String,
                       "launch \(script) \(launches) --open my://item/7 (detached, no systemd user manager on the bus)")
    }
}
