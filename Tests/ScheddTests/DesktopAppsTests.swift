import Foundation
import Scheduler
import ScheddDesktop
import XCTest

/// The desktop notifier as the app (CONTRACT §8) against the recording server and a fake app on a
/// private bus, with desktop files in a temporary XDG_DATA_DIRS.
final class DesktopAppsTests: XCTestCase {
    private var bus: PrivateBus!
    private var apps: TemporaryDesktopFiles!
    private var services: [PythonService] = []

    override func setUpWithError() throws {
        bus = try PrivateBus()
        apps = try TemporaryDesktopFiles()
    }

    override func tearDown() {
        for s in services { s.stop() }
        bus?.stop()
        apps?.remove()
    }

    private func service(_ s: PythonService) -> PythonService { services.append(s); return s }

    private func note(app: String, id: String = "run_1:a", deepLink: String? = nil, action: AppActionRequest? = nil,
                      image: String? = nil, snooze: [Int64] = [], icon: String? = nil,
                      actions: [NotificationAction] = []) -> DueNotification {
        var n = dueNotification(id: id, icon: icon, actions: actions)
        n.app = app
        n.extras = NotificationExtras(deepLink: deepLink, action: action, image: image, snoozeSeconds: snooze)
        return n
    }

    private func notifier() throws -> (DesktopNotifier, InteractionLog) {
        let n = try DesktopNotifier(address: bus.address, appDirectory: apps.appDirectory)
        let log = InteractionLog()
        log.attach(to: n)
        return (n, log)
    }

    func testShownAsTheApp_nameIconImageSnoozeButtons() throws {
        try apps.add("org.example.Shown", "[Desktop Entry]\nType=Application\nName=Shown App\nName[de]=Gezeigt\nIcon=shown-icon\nExec=shown %u\n")
        let server = service(try PythonService.notificationServer(address: bus.address))
        let (n, _) = try notifier()
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Shown", image: "file:///tmp/a%20b.png", snooze: [600, 5400],
                                   actions: [NotificationAction(id: "done", title: "Done")])), .shown)
        let args = try XCTUnwrap(server.calls("Notify").first?["args"] as? [String: Any])
        XCTAssertEqual(args["app_name"] as? String, "Shown App")
        XCTAssertEqual(args["app_icon"] as? String, "shown-icon")
        XCTAssertEqual(args["actions"] as? [String], ["done", "Done", "schedd-snooze-600", "Snooze 10 min",
                                                      "schedd-snooze-5400", "Snooze 1 h 30 min", "default", "Open"])
        let hints = try XCTUnwrap(args["hints"] as? [String: [String: Any]])
        XCTAssertEqual(hints["desktop-entry"]?["value"] as? String, "org.example.Shown")
        XCTAssertEqual(hints["image-path"]?["value"] as? String, "file:///tmp/a%20b.png", "bk.image as the image")
        XCTAssertEqual(hints["x-schedd-app"]?["value"] as? String, "org.example.Shown")

        // No desktop file: the app id as the name, nothing to open; a remote bk.image is not shown.
        XCTAssertEqual(showAndWait(n, note(app: "org.example.NoFile", id: "b", image: "https://example.org/x.png")), .shown)
        let second = try XCTUnwrap(server.calls("Notify").last?["args"] as? [String: Any])
        XCTAssertEqual(second["app_name"] as? String, "org.example.NoFile")
        XCTAssertEqual(second["actions"] as? [String], [])
        XCTAssertNil((second["hints"] as? [String: Any])?["image-path"], "schedd never fetches remote images")
    }

    func testButtonsRunActivateAction_bkActionRunsOnClick_withToken_andFailureIsRecorded() throws {
        try apps.add("org.example.Active", "[Desktop Entry]\nType=Application\nName=Active\nExec=active\nDBusActivatable=true\n")
        let server = service(try PythonService.notificationServer(address: bus.address))
        let app = service(try PythonService.fakeApp("org.example.Active", address: bus.address))
        let (n, log) = try notifier()
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Active", deepLink: "active://x",
                                   action: AppActionRequest(name: "show-item", dataJSON: #"{"item":7}"#),
                                   actions: [NotificationAction(id: "done", title: "Done")])), .shown)
        let sid = try XCTUnwrap(server.calls("Notify").first?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActivation", "uss", "\(sid)", "tok-b", "done"])
        XCTAssertTrue(pump(n) { log.interactions.count == 1 })
        let byButton = try XCTUnwrap(app.calls("ActivateAction").first)
        XCTAssertEqual(byButton["action"] as? String, "done")
        XCTAssertEqual((byButton["parameter"] as? [Any])?.count, 0)
        XCTAssertEqual((byButton["platform_data"] as? [String: [String: Any]])?["activation-token"]?["value"] as? String, "tok-b")
        XCTAssertEqual(log.interactions[0].ran, #"ActivateAction("done")"#)
        XCTAssertEqual(log.interactions[0].ok, true)

        // Clicking the body: bk.action wins over the deep link; no token this time (none was sent).
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Active", id: "c", deepLink: "active://x",
                                   action: AppActionRequest(name: "show-item", dataJSON: #"{"item":7}"#))), .shown)
        let sid2 = try XCTUnwrap(server.calls("Notify").last?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActionInvoked", "us", "\(sid2)", "default"])
        XCTAssertTrue(pump(n) { log.interactions.count == 2 })
        let byClick = try XCTUnwrap(app.calls("ActivateAction").last)
        XCTAssertEqual(byClick["action"] as? String, "show-item")
        XCTAssertEqual((byClick["parameter"] as? [[String: Any]])?.first?["value"] as? String, #"{"item":7}"#)
        XCTAssertEqual((byClick["platform_data"] as? [String: Any])?.count, 0)

        // An app that answers with an error: opened, not ok, and the error in `ran`.
        app.stop()
        services.removeAll { $0 === app }
        let failing = service(try PythonService.fakeApp("org.example.Active", address: bus.address, fail: true))
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Active", id: "d")), .shown)
        let sid3 = try XCTUnwrap(server.calls("Notify").last?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActionInvoked", "us", "\(sid3)", "default"])
        XCTAssertTrue(pump(n) { log.interactions.count == 3 })
        XCTAssertEqual(failing.calls("Activate").count, 1)
        XCTAssertEqual(log.interactions[2].ok, false)
        XCTAssertTrue(log.interactions[2].ran?.contains("org.example.FakeApp.Error.Failed") ?? false, "\(log.interactions[2])")
    }

    func testNotDBusActivatable_launchesExecWithTheDeepLinkAndToken() throws {
        let launches = apps.directory + "/launches.jsonl"
        let script = DesktopHarness.repoRoot.appendingPathComponent("Tests/Support/apps/record_launch.sh").path
        try apps.add("org.example.Exec", "[Desktop Entry]\nType=Application\nName=Exec App\nExec=\(script) \(launches) --open %U\n")
        let server = service(try PythonService.notificationServer(address: bus.address))
        let (n, log) = try notifier()
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Exec", deepLink: "exec://item/5")), .shown)
        let sid = try XCTUnwrap(server.calls("Notify").first?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActivation", "uss", "\(sid)", "tok-x", "default"])
        XCTAssertTrue(pump(n) { !log.interactions.isEmpty })
        XCTAssertTrue(waitUntil { (try? String(contentsOfFile: launches, encoding: .utf8))?.hasSuffix("\n") == true })
        let line = try XCTUnwrap(try? String(contentsOfFile: launches, encoding: .utf8))
        let launched = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(launched["argv"] as? [String], ["--open", "exec://item/5"])
        XCTAssertEqual(launched["XDG_ACTIVATION_TOKEN"] as? String, "tok-x")
        XCTAssertEqual(launched["DESKTOP_STARTUP_ID"] as? String, "tok-x")
        XCTAssertEqual(log.interactions.first?.ok, true)
        // No org.freedesktop.systemd1 on this bus: double fork + setsid, and history says so.
        XCTAssertEqual(log.interactions.first?.ran,
                       "launch \(script) \(launches) --open exec://item/5 (detached, no systemd user manager on the bus)")
        XCTAssertNotEqual(launched["launcher_parent"] as? Int, Int(getpid()), "the app is not the notifier's child")
        XCTAssertNotEqual(launched["sid"] as? Int, Int(getsid(0)), "the app has a session of its own")
    }

    func testSnoozeButton_hidesIt_andReportsTheDuration() throws {
        let server = service(try PythonService.notificationServer(address: bus.address))
        let (n, log) = try notifier()
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Snoozy", snooze: [600])), .shown)
        let sid = try XCTUnwrap(server.calls("Notify").first?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActionInvoked", "us", "\(sid)", "schedd-snooze-600"])
        XCTAssertTrue(pump(n) { !log.snoozes.isEmpty })
        XCTAssertEqual(log.snoozes.first?.1, 600)
        XCTAssertEqual(log.snoozes.first?.0.app, "org.example.Snoozy")
        XCTAssertTrue(log.interactions.isEmpty, "a snooze is not an opening")
        XCTAssertTrue(pump(n) { n.callsInFlight == 0 }, "CloseNotification not answered")  // it is asynchronous
        XCTAssertEqual(server.calls("CloseNotification").count, 1, "pressing snooze hides it")
        XCTAssertNil(n.serverId(forSchedule: "run_1:a", app: "org.example.Snoozy"))
        // A snooze key the notification did not offer is an ordinary action.
        XCTAssertEqual(showAndWait(n, note(app: "org.example.Snoozy", id: "e", snooze: [600])), .shown)
        let sid2 = try XCTUnwrap(server.calls("Notify").last?["reply"] as? Int)
        try notifyControl(bus.address, ["EmitActionInvoked", "us", "\(sid2)", "schedd-snooze-60"])
        XCTAssertTrue(pump(n) { !log.interactions.isEmpty })
        XCTAssertEqual(log.snoozes.count, 1)
    }
}
