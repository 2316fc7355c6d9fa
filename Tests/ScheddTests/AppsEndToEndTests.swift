import Foundation
import Glibc
import XCTest

/// CONTRACT §8 on real parts: a private bus, the real daemon with the desktop notifier, the recording
/// notification server (which emits ActivationToken then ActionInvoked), a fake app (Python) owning
/// its name with org.freedesktop.Application, desktop files in a temporary XDG_DATA_DIRS, callers as a
/// fake Flatpak (unshare + chroot with a .flatpak-info) and in a real app-scope cgroup.
final class AppsEndToEndTests: XCTestCase {
    static let app = "org.example.Reminders"
    static let t0 = "2026-03-08T05:00:00Z"
    var desktop: DesktopDaemon!
    var apps: TemporaryDesktopFiles { desktop.apps }
    var h: ScheddHarness { desktop.harness }
    var server: PythonService { desktop.server }
    var services: [PythonService] = []

    override func setUpWithError() throws {
        desktop = try DesktopDaemon(fakeClock: Self.t0, app: Self.app, desktopFile: """
            [Desktop Entry]
            Type=Application
            Name=Reminders
            Icon=org.example.Reminders
            Exec=reminders %U
            DBusActivatable=true
            MimeType=x-scheme-handler/reminders;
            """)
    }

    override func tearDown() {
        for s in services { s.stop() }
        desktop?.tearDown()
    }

    func cliAs(flatpak app: String, _ args: [String], stdin: String? = nil) throws -> CommandResult {
        try runAsFlatpak(app, Build.schedd, args + ["--bus", h.bus.address], stdin: stdin, environment: ["TZ": "UTC"])
    }

    func jsonLines(_ r: CommandResult) -> [[String: Any]] { r.lines.compactMap(parseObject) }

    /// The flagship: a fake Flatpak app schedules a notification with a deep link; it is shown as the
    /// app; the person clicks it (the server sends ActivationToken then ActionInvoked); the app's
    /// org.freedesktop.Application.Open gets the deep link and the token; history says what ran.
    func testFlatpakApp_isShownAsTheApp_andClickOpensItAtTheDeepLink_withTheActivationToken() throws {
        let fake = try PythonService.fakeApp(Self.app, address: h.bus.address)
        services.append(fake)
        let push = #"{"bk":{"messageId":"m-42","deepLink":"reminders://todo/42","local":{"id":"run_1:a","at":"2026-03-08T05:01:00Z","title":"Water the plants"}}}"#
        let pushed = try cliAs(flatpak: Self.app, ["push", "-", "--json"], stdin: push)
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(jsonLines(pushed).first?["status"] as? String, "scheduled")
        XCTAssertFalse(pushed.stderr.contains("unknown"), "no unknown-member warning for the envelope: \(pushed.stderr)")

        try h.advance("2min")
        XCTAssertTrue(waitUntil { !self.server.calls("Notify").isEmpty }, "Notify reached the server")
        let notify = try XCTUnwrap(server.calls("Notify").first)
        let args = try XCTUnwrap(notify["args"] as? [String: Any])
        XCTAssertEqual(args["app_name"] as? String, "Reminders", "app_name is the desktop file's Name=")
        XCTAssertEqual(args["app_icon"] as? String, "org.example.Reminders", "Icon= when the push has none")
        let hints = try XCTUnwrap(args["hints"] as? [String: [String: Any]])
        XCTAssertEqual(hints["desktop-entry"]?["value"] as? String, Self.app)
        XCTAssertEqual(args["actions"] as? [String], ["default", "Open"], "something to open: the implicit default action")
        let serverId = try XCTUnwrap(notify["reply"] as? Int)

        try notifyControl(h.bus.address, ["EmitActivation", "uss", "\(serverId)", "tok-42", "default"])
        XCTAssertTrue(waitUntil { !fake.calls("Open").isEmpty }, "the app's Open was called; app log:\n\(fake.logText)")
        let open = try XCTUnwrap(fake.calls("Open").first)
        XCTAssertEqual(open["uris"] as? [String], ["reminders://todo/42"])
        let platform = try XCTUnwrap(open["platform_data"] as? [String: [String: Any]])
        XCTAssertEqual(platform["activation-token"]?["value"] as? String, "tok-42")
        XCTAssertEqual(platform["desktop-startup-id"]?["value"] as? String, "tok-42")
        XCTAssertTrue(fake.calls("Activate").isEmpty && fake.calls("ActivateAction").isEmpty)

        var opened: [String: Any]?
        XCTAssertTrue(waitUntil {
            let records = (try? self.cliAs(flatpak: Self.app, ["history", "--json"])).map {
                (try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8))) as? [[String: Any]] ?? []
            } ?? []
            opened = records.first { $0["event"] as? String == "opened" }
            return opened != nil
        })
        XCTAssertEqual(opened?["reason"] as? String, "action:default")
        XCTAssertEqual(opened?["ran"] as? String, #"Open(["reminders://todo/42"])"#)
        XCTAssertEqual(opened?["ok"] as? Bool, true)
        XCTAssertEqual(opened?["app"] as? String, Self.app)
        XCTAssertEqual(opened?["messageId"] as? String, "m-42")
        print("RECORDED Notify: \(notify)\nRECORDED app calls:\n\(fake.logText)\nHISTORY opened: \(opened ?? [:])")
    }

    /// Namespaces: two apps use the same id; each sees and cancels only its own; the sandboxed one
    /// cannot name another app or list every app; an unsandboxed caller may (`--app`, `--all-apps`).
    func testNamespaces_sandboxedSeesOnlyItsOwn_unsandboxedMayNameAny() throws {
        let push = localPush(id: "run_1:a", at: "2026-03-08T06:00:00Z", extra: "\"cancelOn\":[\"checkout\"]")
        XCTAssertEqual(jsonLines(try cliAs(flatpak: Self.app, ["push", "-", "--json"], stdin: push)).first?["status"] as? String,
                       "scheduled")
        XCTAssertEqual(try h.push(push).first?["status"] as? String, "scheduled", "the default app has its own run_1:a")
        let other = try h.cli(["push", "-", "--json", "--app", "org.example.Other"], stdin: push)
        XCTAssertEqual(jsonLines(other).first?["status"] as? String, "scheduled", other.stderr)

        let sandboxList = try cliAs(flatpak: Self.app, ["list", "--json"])
        let sandboxIds = ((try? JSONSerialization.jsonObject(with: Data(sandboxList.stdout.utf8))) as? [[String: Any]] ?? [])
        XCTAssertEqual(sandboxIds.map { $0["app"] as? String }, [Self.app], "a sandboxed app sees only its own")
        let all = try XCTUnwrap(try h.json(["list", "--all-apps"]) as? [[String: Any]])
        XCTAssertEqual(Set(all.compactMap { $0["app"] as? String }), [Self.app, "org.schedd.Default", "org.example.Other"])

        let denied = try cliAs(flatpak: Self.app, ["list", "--all-apps", "--json"])
        XCTAssertNotEqual(denied.status, 0)
        XCTAssertTrue(denied.stdout.contains("sandboxed") || denied.stderr.contains("sandboxed"), denied.stdout + denied.stderr)
        let claimed = try cliAs(flatpak: Self.app, ["cancel", "run_1:a", "--app", "org.example.Other", "--json"])
        XCTAssertNotEqual(claimed.status, 0, "a sandboxed app cannot act as another")
        XCTAssertTrue((claimed.stdout + claimed.stderr).contains("acts only as itself"), claimed.stdout + claimed.stderr)

        // track from the sandboxed app cancels only its own.
        let tracked = try cliAs(flatpak: Self.app, ["track", "checkout", "--json"])
        XCTAssertEqual(tracked.status, 0, tracked.stderr)
        XCTAssertTrue(tracked.stdout.contains("run_1:a"))
        let left = try XCTUnwrap(try h.json(["list", "--all-apps"]) as? [[String: Any]])
        XCTAssertEqual(Set(left.compactMap { $0["app"] as? String }), ["org.schedd.Default", "org.example.Other"])
        let otherHistory = try XCTUnwrap(try h.json(["history", "--app", "org.example.Other"]) as? [[String: Any]])
        XCTAssertEqual(otherHistory.compactMap { $0["event"] as? String }, [], "nothing happened to the other app's run_1:a")

        let bad = try h.cli(["list", "--app", "reminders", "--json"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdout.contains("needs at least two elements"), bad.stdout)
    }

    /// The systemd unit a launcher put the caller in names its app (a real cgroup).
    func testAppScopeCaller_isItsApp() throws {
        let push = localPush(id: "scoped", at: "2026-03-08T06:00:00Z")
        let r = try runInAppScope("app-gnome-org.example.Scoped-\(getpid()).scope", Build.schedd,
                                  ["push", "-", "--json", "--bus", h.bus.address], stdin: push, environment: ["TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = try XCTUnwrap(try h.json(["list", "--all-apps"]) as? [[String: Any]])
        XCTAssertEqual(all.first { $0["id"] as? String == "scoped" }?["app"] as? String, "org.example.Scoped")
    }

    /// Quota: over `--max-pending-per-app` a push is rejected naming the bound; NDJSON rejects only that line.
    func testQuota_rejectsOnlyThePushOverTheBound() throws {
        h.stopDaemon()
        let q = try ScheddHarness(fakeClock: Self.t0, notifierArguments: ["--notifier", "stdout", "--max-pending-per-app", "2"])
        defer { q.tearDown() }
        let lines = (1...3).map { localPush(id: "q\($0)", at: "2026-03-08T06:00:00Z") }
            + [#"{"bk":{"cancel":{"id":"q1"}}}"#, localPush(id: "q4", at: "2026-03-08T06:00:00Z")]
        let r = try q.cli(["push", "-", "--json"], stdin: lines.joined(separator: "\n"))
        XCTAssertEqual(r.status, 1, "a rejected line makes the exit 1")
        let answers = r.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 5, r.stdout)
        XCTAssertEqual(answers[0]["status"] as? String, "scheduled")
        XCTAssertEqual(answers[1]["status"] as? String, "scheduled")
        XCTAssertTrue((answers[2]["error"] as? String ?? "").contains("max-pending-per-app 2"), "\(answers[2])")
        XCTAssertEqual(answers[3]["status"] as? String, "cancelled")
        XCTAssertEqual(answers[4]["status"] as? String, "scheduled", "room again after the cancel")
        XCTAssertEqual(Set(try q.list().compactMap { $0["id"] as? String }), ["q2", "q4"], "the rejected push stored nothing")
        let other = try q.cli(["push", "-", "--json", "--app", "org.example.Other"], stdin: lines[2])
        XCTAssertEqual(other.status, 0, "the quota is per app")
    }
}
