import Foundation
import Scheduler
import ScheddDesktop
import XCTest
import TestPrerequisites

/// The real DesktopNotifier against a real notification server: dunst under Xvfb on a private bus
/// (Tests/Support/notify/start-dunst.sh, dunstrc with markup on). Skipped only when Xvfb or dunst is
/// not installed (CI installs both: scripts/install-deps.sh).
final class DesktopNotifierDunstTests: XCTestCase {
    private var bus: PrivateBus!
    private var dunst: TetheredProcess?
    private var display = ""

    override func setUpWithError() throws {
        guard DesktopHarness.which("Xvfb") != nil, DesktopHarness.which("dunst") != nil,
              DesktopHarness.which("dunstctl") != nil else { throw missingReference("Xvfb/dunst not installed") }
        bus = try PrivateBus()
        // Tethered: Xvfb and dunst (in start-dunst.sh's process group) stop with the test process.
        let started: TetheredProcess
        do {
            started = try TetheredProcess(["/bin/bash", DesktopHarness.notifyDir.appendingPathComponent("start-dunst.sh").path,
                                           bus.address], lines: 3)
        } catch {
            throw DesktopHarnessError(message: "start-dunst.sh failed: \(error)")
        }
        dunst = started
        display = started.lines[0]
    }

    override func tearDown() {
        dunst?.stop()
        bus?.stop()
    }

    private func dunstctl(_ args: String...) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let (status, output) = try DesktopHarness.run("/usr/bin/dunstctl", args, environment: environment)
        XCTAssertEqual(status, 0, "dunstctl \(args.joined(separator: " "))")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The text a markup renderer shows for `markup`: XML character data with the entities resolved
    /// (Python's ElementTree, independent of our escaping code).
    private func renderedText(_ markup: String) throws -> String {
        let script = "import sys, xml.etree.ElementTree as ET; "
            + "sys.stdout.write(''.join(ET.fromstring('<m>' + sys.argv[1] + '</m>').itertext()))"
        let (status, output) = try DesktopHarness.run(DesktopHarness.python, ["-c", script, markup])
        XCTAssertEqual(status, 0, "not well-formed markup: \(markup)")
        return output
    }

    /// `dunstctl history` → its notifications as [field: value].
    private func history() throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(try dunstctl("history").utf8)) as? [String: Any]
        let entries = (json?["data"] as? [[Any]])?.first as? [[String: Any]] ?? []
        return entries.map { entry in entry.mapValues { ($0 as? [String: Any])?["data"] ?? $0 } }
    }

    func testDunst_showsSummaryAndBodyLiterally_andCloseRemovesIt() throws {
        let notifier = try DesktopNotifier(address: bus.address)
        let title = "Stand up & stretch"
        let body = "Use <b>bold</b> & \"quotes\" — shown as typed"
        let result = showAndWait(notifier, dueNotification(id: "run_9:dunst", title: title, body: body, urgency: .critical,
                                                   actions: [NotificationAction(id: "snooze", title: "Snooze")]))
        XCTAssertEqual(result, .shown)
        XCTAssertTrue(notifier.capabilities?.contains("body-markup") ?? false, "dunstrc sets markup = full")
        XCTAssertEqual(try dunstctl("count", "displayed"), "1")
        try screenshotIfAsked()

        notifier.close(app: Engine.defaultApp, id: "run_9:dunst")  // CloseNotification: dunst moves it to its history
        XCTAssertTrue(pump(notifier) { notifier.callsInFlight == 0 }, "CloseNotification not answered")
        XCTAssertEqual(try dunstctl("count", "displayed"), "0")
        let shown = try XCTUnwrap(try history().first { $0["appname"] as? String == "schedd" })
        XCTAssertEqual(shown["summary"] as? String, title)
        XCTAssertEqual(try renderedText(try XCTUnwrap(shown["body"] as? String)), body,
                       "the body must render literally on a markup server")
        XCTAssertEqual(try renderedText(try XCTUnwrap(shown["message"] as? String)), "\(title)\n\(body)")
    }

    /// With `SCHEDD_DUNST_SCREENSHOT=/path.png` set, saves the notification area of the X screen
    /// (ImageMagick `import`): how docs/dunst-notification.png is made.
    private func screenshotIfAsked() throws {
        guard let path = ProcessInfo.processInfo.environment["SCHEDD_DUNST_SCREENSHOT"] else { return }
        XCTAssertTrue(waitForStillScreen(display, scratch: path + ".still.png"), "dunst kept redrawing")
        defer { try? FileManager.default.removeItem(atPath: path + ".still.png") }
        let (status, _) = try DesktopHarness.run("/usr/bin/import",
            ["-display", display, "-window", "root", "-crop", "476x124+540+0", "+repage", path])
        XCTAssertEqual(status, 0, "import failed")
    }

    func testDunst_userClosesNotification_reportsDismissed() throws {
        let notifier = try DesktopNotifier(address: bus.address)
        let log = InteractionLog()
        log.attach(to: notifier)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "run_9:close-me", title: "Close me")), .shown)
        _ = try dunstctl("close")  // the person closes the topmost notification (reason 2)
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "run_9:close-me", event: .dismissed, reason: nil)])
    }

    /// A notification of an app with a desktop file (a temporary XDG_DATA_DIRS): dunst shows the app's
    /// `Name=`, gets the app id as desktop-entry, and its "default" action opens the app (Exec=).
    func testDunst_showsTheAppsName_andDefaultAction_opensIt_andTheFollowingCloseIsNotADismissal() throws {
        let apps = try TemporaryDesktopFiles()
        defer { apps.remove() }
        let launches = apps.directory + "/launches.jsonl"
        try apps.add("org.example.Reminders", """
            [Desktop Entry]
            Type=Application
            Name=Reminders
            Icon=appointment-soon
            Exec=\(DesktopHarness.repoRoot.path)/Tests/Support/apps/record_launch.sh \(launches) %u
            """)
        let notifier = try DesktopNotifier(address: bus.address, appDirectory: apps.appDirectory)
        let log = InteractionLog()
        log.attach(to: notifier)
        var note = dueNotification(id: "run_9:open-me", title: "Open me")
        note.app = "org.example.Reminders"
        note.extras.deepLink = "reminders://todo/9"
        XCTAssertEqual(showAndWait(notifier, note), .shown)
        _ = try dunstctl("action", "0")  // the person activates the topmost notification: its "default" action
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertTrue(waitUntil { (try? String(contentsOfFile: launches, encoding: .utf8))?.contains("reminders://todo/9") == true },
                      "the desktop file's Exec ran with the deep link")
        _ = try dunstctl("close")
        let marker = dueNotification(id: "run_9:marker", title: "Marker")
        XCTAssertEqual(showAndWait(notifier, marker), .shown)
        _ = try dunstctl("close")
        XCTAssertTrue(pump(notifier) { log.entries.contains { $0.id == "run_9:marker" } })
        XCTAssertEqual(log.entries, [.init(id: "run_9:open-me", event: .opened, reason: "action:default"),
                                     .init(id: "run_9:marker", event: .dismissed, reason: nil)])
        let shownEntry = try XCTUnwrap(try history().first { $0["summary"] as? String == "Open me" }, "dunst history")
        XCTAssertEqual(shownEntry["appname"] as? String, "Reminders", "dunst shows the app's Name=")
        XCTAssertEqual(log.ran.first ?? nil, "launch \(DesktopHarness.repoRoot.path)/Tests/Support/apps/record_launch.sh \(launches) reminders://todo/9 (detached, no systemd user manager on the bus)")
    }
}
