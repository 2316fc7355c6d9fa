import Foundation
import Scheduler
import ScheddDesktop
import XCTest

/// The real DesktopNotifier against the recording server on a private bus: what goes over the wire.
final class DesktopNotifierTests: XCTestCase {
    private var bus: PrivateBus!
    private var servers: [RecordingServer] = []

    override func setUpWithError() throws { bus = try PrivateBus() }

    override func tearDown() {
        servers.forEach { $0.stop() }
        bus?.stop()
    }

    private func startServer(caps: [String] = ["body", "body-markup", "actions"]) throws -> RecordingServer {
        let server = try RecordingServer(bus: bus, caps: caps)
        servers.append(server)
        return server
    }

    func testShow_sendsEveryNotifyArgumentPerSpec() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        let icon = "/usr/share/icons/schedd/bell icon.png"
        let result = showAndWait(notifier, dueNotification(id: "run_1:stretch", title: "Stand up", body: "Stretch now",
                                                   urgency: .critical, icon: icon, category: "reminder",
                                                   actions: [NotificationAction(id: "snooze", title: "Snooze 5 min")]))
        XCTAssertEqual(result, .shown)
        let args = try XCTUnwrap(server.notifyArgs().first)
        XCTAssertEqual(args["app_name"] as? String, "schedd")
        XCTAssertEqual(args["replaces_id"] as? Int, 0)
        XCTAssertEqual(args["app_icon"] as? String, "file:///usr/share/icons/schedd/bell%20icon.png")
        XCTAssertEqual(args["summary"] as? String, "Stand up")
        XCTAssertEqual(args["body"] as? String, "Stretch now")
        // The default app (schedd itself) has no desktop file: nothing to open, so no implicit "default".
        XCTAssertEqual(args["actions"] as? [String], ["snooze", "Snooze 5 min"])
        XCTAssertEqual(args["expire_timeout"] as? Int, 0, "critical never expires")
        let hints = try XCTUnwrap(args["hints"] as? [String: [String: Any]])
        XCTAssertEqual(Set(hints.keys), ["urgency", "category", "desktop-entry", "image-path", "x-schedd-id"])
        XCTAssertEqual(hints["urgency"]?["sig"] as? String, "y", "urgency must be a byte")
        XCTAssertEqual(hints["urgency"]?["value"] as? Int, 2)
        XCTAssertEqual(hints["category"]?["value"] as? String, "reminder")
        XCTAssertEqual(hints["desktop-entry"]?["value"] as? String, "schedd")
        XCTAssertEqual(hints["image-path"]?["value"] as? String, "file:///usr/share/icons/schedd/bell%20icon.png")
        XCTAssertEqual(hints["x-schedd-id"]?["value"] as? String, "run_1:stretch")
        for key in ["category", "desktop-entry", "image-path", "x-schedd-id"] {
            XCTAssertEqual(hints[key]?["sig"] as? String, "s", key)
        }
        XCTAssertEqual(server.calls("GetCapabilities").count, 1)
    }

    func testShow_themedIcon_isSentAsName_withoutImagePath() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "a", icon: "appointment-soon")), .shown)
        let args = try XCTUnwrap(server.notifyArgs().first)
        XCTAssertEqual(args["app_icon"] as? String, "appointment-soon")
        XCTAssertNil((args["hints"] as? [String: Any])?["image-path"])
        XCTAssertNil((args["hints"] as? [String: Any])?["category"], "no category hint when none is given")
    }

    func testShow_urgencyMapsToByteAndExpireTimeout() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        let cases: [(Urgency, Int, Int)] = [(.low, 0, 5000), (.normal, 1, -1), (.critical, 2, 0)]
        for (index, (urgency, _, _)) in cases.enumerated() {
            XCTAssertEqual(showAndWait(notifier, dueNotification(id: "u\(index)", urgency: urgency)), .shown)
        }
        let sent = server.notifyArgs()
        XCTAssertEqual(sent.count, cases.count)
        for (args, (urgency, byte, timeout)) in zip(sent, cases) {
            let hints = args["hints"] as? [String: [String: Any]]
            XCTAssertEqual(hints?["urgency"]?["value"] as? Int, byte, "\(urgency)")
            XCTAssertEqual(args["expire_timeout"] as? Int, timeout, "\(urgency)")
        }
    }

    func testShow_withBodyMarkup_escapesBodyButNotSummary() throws {
        let server = try startServer(caps: ["body", "body-markup"])
        let notifier = try DesktopNotifier(address: bus.address)
        let body = "Use <b>bold</b> & \"quotes\" 'too'"
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "m", title: "A & <B>", body: body)), .shown)
        let args = try XCTUnwrap(server.notifyArgs().first)
        XCTAssertEqual(args["body"] as? String,
                       "Use &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot; &apos;too&apos;")
        XCTAssertEqual(args["summary"] as? String, "A & <B>", "the summary is plain text per the spec")
    }

    func testShow_withoutBodyMarkup_sendsBodyUntouched_andNoActionsWithoutActionsCapability() throws {
        let server = try startServer(caps: ["body"])
        let notifier = try DesktopNotifier(address: bus.address)
        let body = "Use <b>bold</b> & friends"
        let result = showAndWait(notifier, dueNotification(id: "p", body: body,
                                                   actions: [NotificationAction(id: "snooze", title: "Snooze")]))
        XCTAssertEqual(result, .shown)
        let args = try XCTUnwrap(server.notifyArgs().first)
        XCTAssertEqual(args["body"] as? String, body)
        XCTAssertEqual(args["actions"] as? [String], [])
    }

    func testShow_nilBody_sendsEmptyBody() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "nb", body: nil)), .shown)
        XCTAssertEqual(server.notifyArgs().first?["body"] as? String, "")
    }

    func testShow_sameScheduleAgain_replacesItsNotification_andReadsCapabilitiesOnce() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "daily", title: "Day 1")), .shown)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "other", title: "Other")), .shown)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "daily", title: "Day 2")), .shown)
        let notifies = server.calls("Notify")
        XCTAssertEqual(notifies.count, 3)
        let firstReply = try XCTUnwrap(notifies[0]["reply"] as? Int)
        XCTAssertEqual((notifies[1]["args"] as? [String: Any])?["replaces_id"] as? Int, 0)
        XCTAssertEqual((notifies[2]["args"] as? [String: Any])?["replaces_id"] as? Int, firstReply)
        XCTAssertEqual(notifies[2]["reply"] as? Int, firstReply)
        XCTAssertEqual(server.calls("GetCapabilities").count, 1)
        XCTAssertEqual(notifier.capabilities, ["body", "body-markup", "actions"])
    }

    func testClose_onScreen_sendsCloseNotificationWithItsServerId_once() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "a")), .shown)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "b")), .shown)
        let serverIdOfB = try XCTUnwrap(notifier.serverId(forSchedule: "b"))
        notifier.close(app: Engine.defaultApp, id: "b")
        notifier.close(app: Engine.defaultApp, id: "b")
        notifier.close(app: Engine.defaultApp, id: "never-shown")
        XCTAssertTrue(pump(notifier) { notifier.callsInFlight == 0 }, "CloseNotification not answered")
        let closes = server.calls("CloseNotification")
        XCTAssertEqual(closes.count, 1)
        XCTAssertEqual((closes.first?["args"] as? [String: Any])?["id"] as? Int, Int(serverIdOfB))
        XCTAssertNil(notifier.serverId(forSchedule: "b"))
        XCTAssertNotNil(notifier.serverId(forSchedule: "a"))
    }

    func testClose_afterShowAgain_closesTheReplacement() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        _ = showAndWait(notifier, dueNotification(id: "r", title: "1"))
        _ = showAndWait(notifier, dueNotification(id: "r", title: "2"))
        notifier.close(app: Engine.defaultApp, id: "r")
        XCTAssertTrue(pump(notifier) { notifier.callsInFlight == 0 }, "CloseNotification not answered")
        let replyIds = server.calls("Notify").compactMap { $0["reply"] as? Int }
        XCTAssertEqual((server.calls("CloseNotification").first?["args"] as? [String: Any])?["id"] as? Int,
                       replyIds.last)
    }
}
