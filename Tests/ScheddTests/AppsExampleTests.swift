import Foundation
import XCTest

/// docs/examples/reminders.py, the example of docs/apps.md, run against a real daemon on a private bus
/// with the recording notification server: it schedules with a deep link, is shown as itself, is
/// opened at the deep link with the token, hears its own NotificationOpened, cancels and tracks.
final class AppsExampleTests: XCTestCase {
    func testTheDocumentedExampleApp_schedulesIsOpenedCancelsAndTracks() throws {
        let desktop = try DesktopDaemon(fakeClock: "2026-03-08T05:00:00Z", app: "org.example.Reminders", desktopFile: """
            [Desktop Entry]
            Type=Application
            Name=Reminders
            Icon=org.example.Reminders
            Exec=reminders.py serve
            DBusActivatable=true
            """)
        defer { desktop.tearDown() }
        let h = desktop.harness, server = desktop.server, apps = desktop.apps
        let example = DesktopHarness.repoRoot.appendingPathComponent("docs/examples/reminders.py").path
        let appOut = apps.directory + "/app.out"
        let app = try ChildProcess(DesktopHarness.python, [example, "--address", h.bus.address, "serve"], stdoutPath: appOut)
        defer { app.terminate() }
        let appLog = { (try? String(contentsOfFile: appOut, encoding: .utf8)) ?? "" }
        XCTAssertTrue(waitUntil { appLog().contains("ready") }, "the example app did not start: \(appLog())")

        func run(_ args: [String]) throws -> CommandResult {
            try runProcess(DesktopHarness.python, [example, "--address", h.bus.address] + args)
        }
        let reminded = try run(["remind", "run_1:water", "2026-03-08T05:01:00Z", "Water the plants", "reminders://todo/42"])
        XCTAssertEqual(reminded.status, 0, reminded.stderr)
        XCTAssertTrue(reminded.stdout.contains("\"scheduled\""), reminded.stdout)
        XCTAssertTrue(try run(["remind", "run_2:later", "2026-03-08T09:00:00Z", "Later"]).stdout.contains("scheduled"))
        let listed = try run(["list"])
        XCTAssertTrue(listed.stdout.contains("run_1:water") && listed.stdout.contains("org.example.Reminders"), listed.stdout)
        XCTAssertEqual(try h.list().count, 0, "the default app's namespace is empty")

        try h.advance("2min")
        XCTAssertTrue(waitUntil { !server.calls("Notify").isEmpty })
        let notify = try XCTUnwrap(server.calls("Notify").first)
        let args = try XCTUnwrap(notify["args"] as? [String: Any])
        XCTAssertEqual(args["app_name"] as? String, "Reminders")
        XCTAssertEqual(args["actions"] as? [String], ["schedd-snooze-600", "Snooze 10 min", "default", "Open"])
        let sid = try XCTUnwrap(notify["reply"] as? Int)
        try notifyControl(h.bus.address, ["EmitActivation", "uss", "\(sid)", "tok-e", "default"])
        XCTAssertTrue(waitUntil { appLog().contains("open ['reminders://todo/42'] token tok-e") }, appLog())
        XCTAssertTrue(waitUntil { appLog().contains("opened signal run_1:water default") }, appLog())

        XCTAssertEqual(try run(["done", "run_2:later"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       #"["run_2:later"]"#)
        XCTAssertTrue(try run(["remind", "run_3:x", "2026-03-08T09:00:00Z", "X"]).stdout.contains("scheduled"))
        XCTAssertEqual(try run(["checkout"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), #"["run_3:x"]"#)
    }
}
