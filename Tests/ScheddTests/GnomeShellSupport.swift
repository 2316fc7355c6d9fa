import Foundation
import Glibc
import TestPrerequisites
import XCTest

/// GNOME Shell 43 as the notification server of a test: the real shell (Debian's `gnome-shell`) as the X11
/// compositor of an Xvfb display, on a private bus, started by Tests/Support/notify/start-server.sh
/// `gnome-shell` (a stand-in system bus, /run/systemd hidden in a mount namespace of its own, the session mode
/// schedd-test with the read-only probe extension). Starting it takes 1–8 s, so a test class shares one
/// (`GnomeShell.shared()`), stopped by the class's `tearDown()`; the tether stops it with the test process
/// in any case.
///
/// What the shell shows is read two ways, each of which fails when the banner is not drawn: the probe
/// (org.schedd.test.ShellProbe, Tests/Support/notify/gnome-shell) reports the banner's texts as the shell set
/// them (markup parsed) and where each is on screen; a screenshot (ImageMagick `import`) of those places,
/// read by OCR (tesseract), shows the pixels say the same.
final class GnomeShell {
    let bus: PrivateBus
    let display: String
    private let process: TetheredProcess
    private let work: TemporaryDirectory

    nonisolated(unsafe) private static var instance: GnomeShell?

    /// The shell of the running test class, started on first use.
    static func shared() throws -> GnomeShell {
        if let instance { return instance }
        let started = try GnomeShell()
        instance = started
        return started
    }

    /// Stops the shared shell (a test class's `tearDown()`).
    static func stopShared() {
        instance?.stop()
        instance = nil
    }

    /// Fails (or skips, without SCHEDD_REQUIRE_REFERENCES=1) when a tool the GNOME tests need is missing.
    static func requireTools() throws {
        for tool in ["gnome-shell", "gjs", "Xvfb", "xdotool", "import", "convert", "tesseract", "unshare"] {
            try requirePrerequisite(DesktopHarness.which(tool) != nil, "\(tool) (scripts/install-deps.sh)")
        }
        try requirePrerequisite(getuid() == 0, "root (gnome-shell runs in a mount namespace of its own: unshare -m)")
    }

    private init() throws {
        bus = try PrivateBus()
        do {
            work = try TemporaryDirectory()
        } catch {
            bus.stop()
            throw error
        }
        do {
            process = try TetheredProcess(["/bin/bash", DesktopHarness.notifyDir.appendingPathComponent("start-server.sh").path,
                                           bus.address, "gnome-shell", work.file("shell.log")],
                                          lines: 4, stderrPath: work.file("start-server.err"), seconds: 90)
        } catch {
            let complaint = (try? String(contentsOfFile: work.file("start-server.err"), encoding: .utf8)) ?? ""
            let log = (try? String(contentsOfFile: work.file("shell.log"), encoding: .utf8)) ?? ""
            bus.stop()
            work.remove()
            if complaint.contains("is not installed") { throw missingReference("\(complaint) (scripts/install-deps.sh)") }
            throw DesktopHarnessError(message: "start-server.sh gnome-shell failed: \(error): \(complaint)\n\(log.suffix(3000))")
        }
        display = process.lines[0]
    }

    private func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: process.lines[3])
        bus.stop()
        work.remove()
    }

    /// The shell's own log (its stdout and stderr), for failure messages.
    var log: String { (try? String(contentsOfFile: work.file("shell.log"), encoding: .utf8)) ?? "" }

    // MARK: - The probe

    /// A place on the screen, in pixels.
    struct Box: Equatable {
        var x: Int, y: Int, w: Int, h: Int
        var center: (x: Int, y: Int) { (x + w / 2, y + h / 2) }
    }

    /// The banner on screen as the shell reports it.
    struct Banner {
        var state: String
        var title: String
        var body: String
        var box: Box
        /// Every text actor of the banner on screen (title, body, button labels), with its place.
        var texts: [(text: String, box: Box)]
        var buttons: [(label: String, box: Box)]
        /// Whether the banner finished sliding in: shown, fully opaque, at its final place.
        var settled: Bool

        func text(_ text: String) -> Box? { texts.first { $0.text == text }?.box }
        func button(_ label: String) -> Box? { buttons.first { $0.label == label }?.box }
    }

    /// Calls the probe's `member`: its boolean, or its JSON text parsed.
    private func probe(_ member: String) throws -> Any? {
        let r = try runProcess("/usr/bin/busctl", ["--address=\(bus.address)", "--json=short", "call", "org.schedd.test.ShellProbe",
                                                   "/org/schedd/test/ShellProbe", "org.schedd.test.ShellProbe", member])
        guard r.status == 0 else { throw DesktopHarnessError(message: "probe \(member): \(r.stderr)") }
        let answer = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let value = (answer?["data"] as? [Any])?.first
        guard let json = value as? String else { return value }  // Settle's boolean
        return try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    }

    private static func box(_ any: Any?) -> (Box, settled: Bool)? {
        guard let d = any as? [String: Any], let x = d["x"] as? Int, let y = d["y"] as? Int, let w = d["w"] as? Int,
              let h = d["h"] as? Int else { return nil }
        return (Box(x: x, y: y, w: w, h: h), d["mapped"] as? Bool == true && d["opacity"] as? Int == 255)
    }

    /// The banner now on screen, nil when none is.
    func banner() throws -> Banner? {
        guard let d = try probe("Banner") as? [String: Any], let (box, opaque) = Self.box(d["box"]) else { return nil }
        let texts = (d["texts"] as? [[String: Any]] ?? []).compactMap { t -> (String, Box)? in
            guard let text = t["text"] as? String, let (b, _) = Self.box(t["box"]) else { return nil }
            return (text, b)
        }
        let buttons = (d["buttons"] as? [[String: Any]] ?? []).compactMap { t -> (String, Box)? in
            guard let label = t["label"] as? String, let (b, _) = Self.box(t["box"]) else { return nil }
            return (label, b)
        }
        let state = d["state"] as? String ?? ""
        return Banner(state: state, title: d["title"] as? String ?? "", body: d["body"] as? String ?? "", box: box,
                      texts: texts, buttons: buttons, settled: state == "shown" && opaque && box.y >= 0)
    }

    /// Waits (up to `seconds`) for a banner titled `title` to finish sliding in, and returns it.
    func waitForBanner(_ title: String, seconds: Double = 15) throws -> Banner? {
        var found: Banner?
        _ = try waitUntil(seconds) {
            found = try banner()
            return found.map { $0.title == title && $0.settled } ?? false
        }
        return found.flatMap { $0.title == title && $0.settled ? $0 : nil }
    }

    /// The notifications the shell's tray holds (shown or not): title, body, urgency (MessageTray.Urgency:
    /// low 0, normal 1, high 2, critical 3), resident.
    func tray() throws -> [[String: Any]] { try probe("Tray") as? [[String: Any]] ?? [] }

    /// The rows the top bar takes at the top of the screen (where GNOME draws the wall-clock time).
    func topBarHeight() throws -> Int {
        guard let height = try probe("TopBar") as? Int, height > 0 else {
            throw DesktopHarnessError(message: "the probe did not tell the top bar's height")
        }
        return height
    }

    /// Whether the shell has no banner up, none queued and no notification in its tray (drops leftovers).
    func settle() throws -> Bool { try probe("Settle") as? Bool ?? false }

    // MARK: - The screen

    /// A screenshot of the whole X screen to `path` (ImageMagick `import -window root`).
    func screenshot(_ path: String) throws {
        let (status, _) = try DesktopHarness.run("/usr/bin/import", ["-display", display, "-window", "root", path])
        guard status == 0 else { throw DesktopHarnessError(message: "import -display \(display) failed") }
    }

    /// The text OCR reads at `box` of the screenshot `shot` (a few pixels of margin, scaled up, grey, inverted:
    /// the shell draws light text on a dark banner; tesseract reads one line). Tries 200 % and 300 %: returns
    /// the first reading equal to `expected`, else every reading joined by " | " (for the failure message).
    func read(_ shot: String, at box: Box, expecting expected: String) throws -> String {
        let margin = 5
        var readings: [String] = []
        for scale in [200, 300] {
            let crop = work.file("ocr-\(scale).png")
            let geometry = "\(box.w + 2 * margin)x\(box.h + 2 * margin)+\(max(0, box.x - margin))+\(max(0, box.y - margin))"
            let (converted, _) = try DesktopHarness.run("/usr/bin/convert", [shot, "-crop", geometry, "+repage", "-resize", "\(scale)%",
                                                                            "-colorspace", "Gray", "-negate", crop])
            guard converted == 0 else { throw DesktopHarnessError(message: "convert -crop \(geometry) failed") }
            let r = try runProcess(DesktopHarness.which("tesseract") ?? "/usr/bin/tesseract", [crop, "-", "--psm", "7"])
            let text = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if text == expected { return text }
            readings.append(text)
        }
        return readings.joined(separator: " | ")
    }

    /// A real click (xdotool: the pointer moves there, button 1 goes down and up), then the pointer moves to
    /// the bottom-right corner, away from any banner (a banner under the pointer is kept on screen).
    func click(_ point: (x: Int, y: Int)) throws {
        let env = ["DISPLAY": display]
        let r = try runProcess("/usr/bin/xdotool", ["mousemove", "--sync", "\(point.x)", "\(point.y)", "click", "1"], environment: env)
        guard r.status == 0 else { throw DesktopHarnessError(message: "xdotool click at \(point): \(r.stderr)") }
        _ = try runProcess("/usr/bin/xdotool", ["mousemove", "1010", "750"], environment: env)
    }
}
