import Foundation
import Glibc
import XCTest

/// The envelope as senders write it (CONTRACT §1, §8): docs/examples/buzzkit-envelope.json, pushed
/// verbatim — `aps`, `customer` and `campaign` at the root, `messageId`, `deepLink`, an action named
/// `show_offer` (an underscore: not a GAction name), an https image, `local` with `cancelOn` and
/// `data`, and a run `cancel` — to the real daemon with the desktop notifier, the recording server and
/// the fake app (which answers a GLib-invalid action name as GLib does, `InvalidArgs`).
final class AppsEnvelopeTests: XCTestCase {
    static let app = "com.example.Shop"

    func testSeedEnvelope_isScheduled_imageKeptNotFetched_messageIdEverywhere_opensWithActionThenActivate() throws {
        let desktop = try DesktopDaemon(fakeClock: "2026-03-08T12:00:00Z", app: Self.app,
                                        desktopFile: "[Desktop Entry]\nType=Application\nName=Shop\nExec=shop %U\nDBusActivatable=true\n")
        defer { desktop.tearDown() }
        let h = desktop.harness, server = desktop.server
        let fake = try PythonService.fakeApp(Self.app, address: h.bus.address)
        defer { fake.stop() }
        // A listener standing in for an image host: any fetch of the second push's image would reach it.
        let listener = try ConnectionRecorder()
        defer { listener.stop() }

        let envelopePath = DesktopHarness.repoRoot.appendingPathComponent("docs/examples/buzzkit-envelope.json").path
        let envelope = try String(contentsOfFile: envelopePath, encoding: .utf8)
        let pushed = try h.cli(["push", envelopePath, "--json", "--app", Self.app])
        XCTAssertEqual(pushed.status, 0, pushed.stdout + pushed.stderr)
        let answers = pushed.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 2, pushed.stdout)
        XCTAssertEqual(answers.first?["run"] as? String, "run_cart_41")
        XCTAssertEqual(answers.first?["status"] as? String, "cancelled")
        XCTAssertEqual(answers.last?["id"] as? String, "run_cart_42:reminder_1")
        XCTAssertEqual(answers.last?["status"] as? String, "scheduled")
        XCTAssertEqual(answers.last?["next"] as? String, "2026-03-08T18:00:00Z")
        XCTAssertEqual(pushed.stderr, "", "no warning for the sender's own root members or the envelope")

        // The same envelope with its image at the listener (only that member changed).
        let localImage = "https://127.0.0.1:\(listener.port)/offers/spring20.png"
        let second = envelope.replacingOccurrences(of: "https://cdn.example.com/offers/spring20.png", with: localImage)
            .replacingOccurrences(of: "run_cart_42:reminder_1", with: "run_cart_43:reminder_1")
        XCTAssertNotEqual(second, envelope)
        let secondAnswer = try h.cli(["push", "-", "--json", "--app", Self.app], stdin: second)
        XCTAssertEqual(secondAnswer.lines.compactMap(parseObject).last?["status"] as? String, "scheduled", secondAnswer.stderr)

        // Kept: the stored row holds the https image as sent (whichever column the schema keeps it in).
        let stored = try runProcess("/usr/bin/sqlite3", ["-readonly", h.databasePath,
                                                         "SELECT * FROM schedules WHERE id = 'run_cart_42:reminder_1'"])
        XCTAssertEqual(stored.status, 0, stored.stderr)
        XCTAssertTrue(stored.stdout.contains("https://cdn.example.com/offers/spring20.png"), stored.stdout)
        XCTAssertTrue(stored.stdout.contains("show_offer"), stored.stdout)

        try h.advance("6h")
        XCTAssertTrue(waitUntil { server.calls("Notify").count == 2 }, server.logText)
        let notifies = server.calls("Notify")
        for notify in notifies {
            let args = try XCTUnwrap(notify["args"] as? [String: Any])
            XCTAssertEqual(args["app_name"] as? String, "Shop")
            XCTAssertEqual(args["actions"] as? [String], ["open_cart", "Open cart", "schedd-snooze-600", "Snooze 10 min",
                                                          "default", "Open"])
            let hints = try XCTUnwrap(args["hints"] as? [String: Any])
            XCTAssertNil(hints["image-path"], "a remote image is never shown (nor fetched)")
        }
        XCTAssertEqual(listener.connections, 0, "schedd connected to the image's host")

        // The person clicks the first notification: ActivateAction("show_offer", [data]) — refused by the
        // app as GLib refuses it — then Activate with the same platform data.
        let first = try XCTUnwrap(notifies.first { ($0["args"] as? [String: Any]).flatMap {
            ($0["hints"] as? [String: [String: Any]])?["x-schedd-id"]?["value"] as? String } == "run_cart_42:reminder_1" })
        let sid = try XCTUnwrap(first["reply"] as? Int)
        try notifyControl(h.bus.address, ["EmitActivation", "uss", "\(sid)", "tok-shop", "default"])
        XCTAssertTrue(waitUntil { !fake.calls("Activate").isEmpty }, fake.logText)
        let action = try XCTUnwrap(fake.calls("ActivateAction").first)
        XCTAssertEqual(action["action"] as? String, "show_offer")
        let parameter = try XCTUnwrap((action["parameter"] as? [[String: Any]])?.first?["value"] as? String)
        let data = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parameter.utf8)) as? [String: Any])
        XCTAssertEqual(data["offerId"] as? String, "SPRING20")
        XCTAssertEqual(data["discountPercent"] as? Int, 20)
        let activate = try XCTUnwrap(fake.calls("Activate").first)
        for call in [action, activate] {
            let platform = try XCTUnwrap(call["platform_data"] as? [String: [String: Any]])
            XCTAssertEqual(platform["activation-token"]?["value"] as? String, "tok-shop")
            XCTAssertEqual(platform["desktop-startup-id"]?["value"] as? String, "tok-shop")
        }
        XCTAssertTrue(fake.calls("Open").isEmpty, "bk.action wins over the deep link")

        var history: [[String: Any]] = []
        XCTAssertTrue(waitUntil {
            history = ((try? h.history(app: Self.app)) ?? []).filter { $0["id"] as? String == "run_cart_42:reminder_1" }
            return history.contains { $0["event"] as? String == "opened" }
        })
        XCTAssertEqual(history.compactMap { $0["event"] as? String }, ["fired", "opened"])
        for record in history {
            XCTAssertEqual(record["messageId"] as? String, "msg_01J9Z3K4QW", "\(record)")
        }
        let opened = try XCTUnwrap(history.last)
        XCTAssertEqual(opened["reason"] as? String, "action:default")
        XCTAssertEqual(opened["ok"] as? Bool, true, "Activate opened it")
        let ran = try XCTUnwrap(opened["ran"] as? String)
        XCTAssertTrue(ran.hasPrefix(#"ActivateAction("show_offer", [{"#), ran)
        XCTAssertTrue(ran.contains("org.freedesktop.DBus.Error.InvalidArgs"), ran)
        XCTAssertTrue(ran.hasSuffix("; then Activate()"), ran)
        XCTAssertEqual((opened["data"] as? [String: Any])?["cartId"] as? String, "c_5521")
        print("HISTORY opened: \(opened)")
    }
}

/// A TCP listener on 127.0.0.1 (a free port) counting the connections it accepts.
final class ConnectionRecorder {
    let port: Int
    private let process: ChildProcess
    private let logPath: String

    init() throws {
        logPath = NSTemporaryDirectory() + "schedd-listener-\(UUID().uuidString).log"
        let portPath = logPath + ".port"
        let script = """
        import socket, sys
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
        open(sys.argv[2], "w").write(str(s.getsockname()[1]))
        while True:
            c, _ = s.accept(); open(sys.argv[1], "a").write("connection\\n"); c.close()
        """
        process = try ChildProcess(DesktopHarness.python, ["-c", script, logPath, portPath])
        var port: Int?
        _ = waitUntil { port = (try? String(contentsOfFile: portPath, encoding: .utf8)).flatMap { Int($0) }; return port != nil }
        try? FileManager.default.removeItem(atPath: portPath)
        guard let port else { process.terminate(); throw DesktopHarnessError(message: "the listener did not start") }
        self.port = port
    }

    var connections: Int {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
