import Foundation
import XCTest

/// GNOME Shell 43 (Debian's `gnome-shell`, the most used desktop) as the notification server of the real
/// daemon (`schedd run --notifier desktop`, fake clock) — issue 34. One shell for the class (GnomeShell,
/// Tests/ScheddTests/GnomeShellSupport.swift): the X11 compositor of an Xvfb screen on a private bus.
///
/// What a person sees is checked on the screen: the banner's title, its body as literal text and its
/// buttons, each where the shell says it drew it (its probe) and read back from a screenshot by OCR. What a
/// person does is done for real: xdotool moves the pointer onto a button or the body and clicks, and the
/// daemon's history must say `opened` with that action and the app must have been opened (a fake app's
/// org.freedesktop.Application for a button, the desktop file's Exec= for the body). A cancel must take the
/// banner off the screen, and an alarm (CONTRACT §11) must be shown as one: critical, resident, Snooze and
/// Dismiss.
///
/// Every notification here is critical (alarms are, and the others say so): GNOME Shell hides a normal
/// banner 4 s after it sees the person active, and the clicks of one test are activity for the next.
final class GnomeShellTests: XCTestCase {
    static let t0 = "2026-06-01T08:00:00Z"
    /// A D-Bus activatable app (the fake app answers org.freedesktop.Application): buttons open it.
    static let shop = "org.example.Shop"
    /// An app with only Exec= (Tests/Support/apps/record_launch.sh): the body opens it at the deep link.
    static let notes = "org.example.Notes"
    static let title = "Cart & you"
    static let body = "<b>5 < 6</b> & more"

    private var shell: GnomeShell!
    private var apps: TemporaryDesktopFiles!
    private var h: ScheddHarness!
    private var services: [PythonService] = []
    private var launches: String { apps.directory + "/launches.jsonl" }

    override class func tearDown() {
        GnomeShell.stopShared()
        super.tearDown()
    }

    override func setUpWithError() throws {
        try GnomeShell.requireTools()
        shell = try GnomeShell.shared()
        // Nothing left on screen by the test before (each leaves its banner closed; this drops what a failed one left).
        XCTAssertTrue(try waitUntil(10) { try shell.settle() }, "the shell does not settle:\n\(shell.log.suffix(2000))")
        apps = try TemporaryDesktopFiles()
        try apps.add(Self.shop, "[Desktop Entry]\nType=Application\nName=Shop\nIcon=emblem-favorite\nExec=shop %u\nDBusActivatable=true\n")
        let recorder = DesktopHarness.repoRoot.appendingPathComponent("Tests/Support/apps/record_launch.sh").path
        try apps.add(Self.notes, "[Desktop Entry]\nType=Application\nName=Notes\nIcon=accessories-text-editor\nExec=\(recorder) \(launches) %u\n")
        var environment = apps.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = shell.bus.address
        h = try ScheddHarness(fakeClock: Self.t0, daemonEnvironment: environment,
                              notifierArguments: ["--notifier", "desktop", "--notify-bus", shell.bus.address])
    }

    override func tearDown() {
        for service in services { service.stop() }
        h?.tearDown()
        apps?.remove()
    }

    // MARK: - Helpers

    /// Pushes one notification of `app` due a minute after t0 (critical unless `local` says more), moves the
    /// clock past it and waits for its banner to finish sliding in.
    private func show(_ app: String, id: String, title: String = GnomeShellTests.title, body: String = GnomeShellTests.body,
                      local extra: String = #""urgency":"critical","actions":[{"id":"open_cart","title":"Open cart"},{"id":"later","title":"Later"}],"snoozeSeconds":[600]"#,
                      deepLink: String) throws -> GnomeShell.Banner {
        let push = #"{"bk":{"deepLink":"\#(deepLink)","local":{"id":"\#(id)","at":"2026-06-01T08:01:00Z","title":"\#(title)","body":"\#(body)",\#(extra)}}}"#
        let pushed = try h.cli(["push", "-", "--json", "--app", app], stdin: push)
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(pushed.lines.compactMap(parseObject).first?["status"] as? String, "scheduled", pushed.stdout)
        try h.advance("2min")
        guard let banner = try shell.waitForBanner(title) else {
            let shown = try shell.banner().map { "\($0)" } ?? "none", tray = try shell.tray()
            throw DesktopHarnessError(message: "no banner '\(title)' on screen; the shell shows \(shown), tray \(tray); "
                                      + "daemon:\n\(h.daemonStderr.suffix(2000))")
        }
        return banner
    }

    /// Waits for the daemon's history of `app` to hold a record of `event` for `id`, and returns it.
    private func record(_ event: String, of id: String, app: String) throws -> [String: Any]? {
        var found: [String: Any]?
        _ = try waitUntil(10) {
            found = try h.history(app: app).first { $0["event"] as? String == event && $0["id"] as? String == id }
            return found != nil
        }
        return found
    }

    /// A screenshot once the screen holds still (no banner sliding, no redraw in progress).
    private func stillScreenshot(_ name: String) throws -> String {
        let path = h.directory.file(name)
        XCTAssertTrue(waitForStillScreen(shell.display, scratch: path, ignoringTop: try shell.topBarHeight()),
                      "the screen below the top bar kept changing")
        try shell.screenshot(path)
        return path
    }

    /// OCR reads each of `texts` where the shell says it drew it.
    private func assertDrawn(_ texts: [String], in banner: GnomeShell.Banner, shot: String, file: StaticString = #filePath,
                             line: UInt = #line) throws {
        for text in texts {
            let box = try XCTUnwrap(banner.text(text), "the shell has no text actor '\(text)' on screen: \(banner.texts)",
                                    file: file, line: line)
            XCTAssertEqual(try shell.read(shot, at: box, expecting: text), text, "OCR of the screenshot at \(box)", file: file, line: line)
        }
    }

    // MARK: - Tests

    func testServerInformation_andCapabilities() throws {
        let info = try runProcess("/usr/bin/busctl", ["--address=\(shell.bus.address)", "call", "org.freedesktop.Notifications",
                                                      "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                                      "GetServerInformation"])
        XCTAssertEqual(info.stdout.trimmingCharacters(in: .whitespacesAndNewlines), #"ssss "gnome-shell" "GNOME" "43.9" "1.2""#)
        let caps = try runProcess("/usr/bin/busctl", ["--address=\(shell.bus.address)", "call", "org.freedesktop.Notifications",
                                                      "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                                      "GetCapabilities"])
        XCTAssertEqual(caps.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       #"as 6 "actions" "body" "body-markup" "icon-static" "persistence" "sound""#)
    }

    /// The banner holds the title, the body exactly as pushed (schedd escapes it: GNOME has body-markup, and
    /// `<b>` must not turn bold nor vanish) and the three buttons; "Open" is the click on the banner itself
    /// (GNOME draws no button for `default`). `SCHEDD_SERVER_SCREENSHOTS=DIR` saves DIR/gnome-shell.png.
    func testBanner_showsTheTitle_theBodyAsLiteralText_andTheButtons() throws {
        let banner = try show(Self.shop, id: "run_34:drawn", deepLink: "shop://cart")
        XCTAssertEqual(banner.title, Self.title)
        XCTAssertEqual(banner.body, Self.body, "the shell parsed schedd's escaped body back to the literal text")
        XCTAssertEqual(banner.buttons.map(\.label), ["Open cart", "Later", "Snooze 10 min"])
        let shot = try stillScreenshot("drawn.png")
        try assertDrawn([Self.title, Self.body, "Open cart", "Later", "Snooze 10 min"], in: banner, shot: shot)
        if let dir = ProcessInfo.processInfo.environment["SCHEDD_SERVER_SCREENSHOTS"] {
            let b = banner.box
            let (status, _) = try DesktopHarness.run("/usr/bin/convert", [shot, "-crop", "\(b.w + 8)x\(b.h + 8)+\(b.x - 4)+\(b.y - 4)",
                                                                         "+repage", "\(dir)/gnome-shell.png"])
            XCTAssertEqual(status, 0)
        }
        _ = try h.cli(["cancel", "run_34:drawn", "--app", Self.shop])
    }

    /// A real click on the "Later" button: GNOME emits ActionInvoked(id, "later") and closes the banner; the
    /// daemon records `opened` with reason `action:later` and calls the app's ActivateAction("later").
    func testClickOnAButton_isRecordedOpenedWithThatAction_andOpensTheApp() throws {
        let app = try PythonService.fakeApp(Self.shop, address: shell.bus.address)
        services.append(app)
        let banner = try show(Self.shop, id: "run_34:button", deepLink: "shop://cart")
        let later = try XCTUnwrap(banner.button("Later"), "\(banner.buttons)")
        try shell.click(later.center)
        let opened = try XCTUnwrap(try record("opened", of: "run_34:button", app: Self.shop), h.daemonStderr)
        XCTAssertEqual(opened["reason"] as? String, "action:later")
        XCTAssertTrue(waitUntil { !app.calls("ActivateAction").isEmpty }, "the app was not opened: \(app.logText)")
        XCTAssertEqual(app.calls("ActivateAction").map { $0["action"] as? String }, ["later"])
        XCTAssertTrue(try waitUntil(5) { try shell.banner() == nil }, "the banner stayed after the click")
    }

    /// A real click on the body: GNOME emits ActionInvoked(id, "default"); the daemon records `opened` with
    /// `action:default` and launches the app's Exec= with the deep link (no systemd user manager on this bus:
    /// detached), without an activation token (GNOME 43 emits no ActivationToken).
    func testClickOnTheBody_isRecordedOpenedDefault_andLaunchesTheAppAtTheDeepLink() throws {
        let banner = try show(Self.notes, id: "run_34:body", deepLink: "notes://page/34")
        let body = try XCTUnwrap(banner.text(Self.body), "\(banner.texts)")
        try shell.click(body.center)
        let opened = try XCTUnwrap(try record("opened", of: "run_34:body", app: Self.notes), h.daemonStderr)
        XCTAssertEqual(opened["reason"] as? String, "action:default")
        XCTAssertTrue(waitUntil { (try? String(contentsOfFile: self.launches, encoding: .utf8))?.hasSuffix("\n") == true },
                      "the app's Exec= did not run")
        let line = try XCTUnwrap(try? String(contentsOfFile: launches, encoding: .utf8))
        let launched = try XCTUnwrap(parseObject(line.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(launched["argv"] as? [String], ["notes://page/34"])
        XCTAssertTrue(launched["XDG_ACTIVATION_TOKEN"] is NSNull, "GNOME 43 sends no ActivationToken: \(launched)")
        XCTAssertTrue(try waitUntil(5) { try shell.banner() == nil }, "the banner stayed after the click")
    }

    /// `schedd cancel` of a notification on screen: the answer and history say `closed`, and GNOME takes the
    /// banner off the screen and out of its tray — the screenshot no longer shows the title where it was.
    func testCancel_takesTheBannerOffTheScreen() throws {
        let banner = try show(Self.shop, id: "run_34:cancel", deepLink: "shop://cart")
        let titleBox = try XCTUnwrap(banner.text(Self.title))
        let cancelled = try h.cli(["cancel", "run_34:cancel", "--app", Self.shop, "--json"])
        XCTAssertEqual(cancelled.status, 0, cancelled.stderr)
        XCTAssertEqual(parseObject(cancelled.stdout)?["closed"] as? [String], ["run_34:cancel"], cancelled.stdout)
        XCTAssertTrue(try waitUntil(10) { try shell.banner() == nil }, "the banner is still up after the cancel")
        let tray = try shell.tray()
        XCTAssertEqual(tray.filter { $0["title"] as? String == Self.title }.count, 0, "still in the tray: \(tray)")
        let shot = try stillScreenshot("cancelled.png")
        XCTAssertNotEqual(try shell.read(shot, at: titleBox, expecting: Self.title), Self.title, "the title is still drawn")
        let closed = try record("closed", of: "run_34:cancel", app: Self.shop)
        let history = try h.history(app: Self.shop)
        XCTAssertEqual(closed?["reason"] as? String, "cli", "history: \(history)")
    }

    /// An alarm (CONTRACT §11, docs/desktop.md "Alarms") on GNOME: critical (no time-out) and resident, with
    /// Snooze and Dismiss drawn; a real click on Dismiss records `dismissed` (`action:schedd-dismiss`), and the
    /// resident banner, which GNOME keeps after an action, is closed by schedd.
    func testAlarm_isCriticalResident_withSnoozeAndDismiss_andDismissClosesIt() throws {
        let banner = try show(Self.shop, id: "alarm:wake", title: "Wake up", body: "Flight at 09:40",
                              local: #""alarm":true"#, deepLink: "shop://cart")
        XCTAssertEqual(banner.buttons.map(\.label), ["Snooze 10 min", "Dismiss"])
        let held = try shell.tray().filter { $0["title"] as? String == "Wake up" }
        XCTAssertEqual(held.count, 1)
        XCTAssertEqual(held.first?["urgency"] as? Int, 3, "MessageTray.Urgency.CRITICAL: never times out")
        XCTAssertEqual(held.first?["resident"] as? Bool, true)
        let shot = try stillScreenshot("alarm.png")
        try assertDrawn(["Wake up", "Flight at 09:40", "Snooze 10 min", "Dismiss"], in: banner, shot: shot)
        try shell.click(try XCTUnwrap(banner.button("Dismiss")).center)
        let dismissed = try XCTUnwrap(try record("dismissed", of: "alarm:wake", app: Self.shop), h.daemonStderr)
        XCTAssertEqual(dismissed["reason"] as? String, "action:schedd-dismiss")
        XCTAssertTrue(try waitUntil(10) { try shell.banner() == nil }, "the alarm stayed on screen after Dismiss")
        XCTAssertTrue(try waitUntil(10) { try shell.tray().isEmpty }, "the alarm stayed in the tray")
    }

    /// A real click on an alarm's "Snooze 10 min": history `snoozed`, the banner leaves (schedd closes it), and
    /// ten minutes later (fake clock) the alarm is on screen again as an alarm, with Snooze and Dismiss.
    func testAlarm_snoozeClick_hidesIt_andItComesBackTenMinutesLater() throws {
        let banner = try show(Self.shop, id: "alarm:snooze", title: "Wake up", body: "Flight at 09:40",
                              local: #""alarm":true"#, deepLink: "shop://cart")
        try shell.click(try XCTUnwrap(banner.button("Snooze 10 min"), "\(banner.buttons)").center)
        XCTAssertNotNil(try record("snoozed", of: "alarm:snooze", app: Self.shop), h.daemonStderr)
        XCTAssertTrue(try waitUntil(10) { try shell.banner() == nil }, "the alarm stayed on screen after Snooze")
        try h.advance("10min")
        let again = try XCTUnwrap(try shell.waitForBanner("Wake up"), "the snoozed alarm did not come back")
        XCTAssertEqual(again.buttons.map(\.label), ["Snooze 10 min", "Dismiss"])
        XCTAssertEqual(try shell.tray().first { $0["title"] as? String == "Wake up" }?["urgency"] as? Int, 3)
        try shell.click(try XCTUnwrap(again.button("Dismiss")).center)
        XCTAssertNotNil(try record("dismissed", of: "alarm:snooze", app: Self.shop))
        XCTAssertTrue(try waitUntil(10) { try shell.banner() == nil })
    }
}
