import Foundation
import Scheduler
import ScheddDesktop
import XCTest

/// Alarms on a notification server (CONTRACT §11 "Alarms"): the hints and buttons on the wire, Dismiss
/// recorded, and shown again when the server drops them unanswered (expired, or a server restart) —
/// bounded by `AlarmReshow.maxReshows`. Against Tests/Support/notify/recording_server.py on a private bus.
final class DesktopAlarmTests: XCTestCase {
    private var bus: PrivateBus!
    private var servers: [RecordingServer] = []
    private var notifier: DesktopNotifier!
    private let log = InteractionLog()
    private var problems: [String] = []

    override func setUpWithError() throws {
        bus = try PrivateBus()
        servers = [try RecordingServer(bus: bus, caps: ["body", "actions", "persistence", "sound"])]
        notifier = try DesktopNotifier(address: bus.address)
        log.attach(to: notifier)
        notifier.outcomes.subscribeProblems { [unowned self] in problems.append($0) }
    }

    override func tearDown() {
        notifier = nil
        for server in servers { server.stop() }
        bus?.stop()
    }

    private var server: RecordingServer { servers.last! }

    private func alarm(_ id: String, snooze: [Int64] = [600]) -> DueNotification {
        var n = dueNotification(id: id, title: "Wake up")
        n.extras.alarm = true
        n.extras.wake = true
        n.extras.snoozeSeconds = snooze
        return n
    }

    private func hints(_ args: [String: Any]) -> [String: [String: Any]] {
        args["hints"] as? [String: [String: Any]] ?? [:]
    }

    func testAlarm_isCriticalResidentWithSoundCategoryAndSnoozeDismissButtons() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:1")), .shown)
        let args = try XCTUnwrap(server.notifyArgs().last)
        let h = hints(args)
        XCTAssertEqual(h["urgency"]?["value"] as? Int, 2)
        XCTAssertEqual(h["urgency"]?["sig"] as? String, "y")
        XCTAssertEqual(h["resident"]?["value"] as? Bool, true)
        XCTAssertEqual(h["resident"]?["sig"] as? String, "b")
        XCTAssertEqual(h["sound-name"]?["value"] as? String, "alarm-clock-elapsed")
        XCTAssertEqual(h["category"]?["value"] as? String, "x-schedd.alarm")
        XCTAssertEqual(args["expire_timeout"] as? Int, 0, "an alarm never expires by itself")
        let actions = try XCTUnwrap(args["actions"] as? [String])
        XCTAssertEqual(Array(actions.prefix(4)), ["schedd-snooze-600", "Snooze 10 min", "schedd-dismiss", "Dismiss"])
        XCTAssertTrue(problems.isEmpty, "a server with actions, persistence and sound shows all of it: \(problems)")
    }

    func testDismissButton_recordsDismissed_andClosesIt() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:d")), .shown)
        let id = try XCTUnwrap(notifier.serverId(forSchedule: "alarm:d"))
        try server.emitActionInvoked(bus: bus, id: id, key: "schedd-dismiss")
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "alarm:d", event: .dismissed, reason: "action:schedd-dismiss")])
        XCTAssertTrue(pump(notifier) { server.calls("CloseNotification").count == 1 })
        XCTAssertNil(notifier.serverId(forSchedule: "alarm:d"))
    }

    func testSnoozeButton_snoozes() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:s")), .shown)
        let id = try XCTUnwrap(notifier.serverId(forSchedule: "alarm:s"))
        try server.emitActionInvoked(bus: bus, id: id, key: "schedd-snooze-600")
        XCTAssertTrue(pump(notifier) { !log.snoozes.isEmpty })
        XCTAssertEqual(log.snoozes.first?.1, 600)
        XCTAssertEqual(log.snoozes.first?.0.extras.alarm, true, "the snoozed alarm comes back as an alarm")
    }

    func testExpiredUnanswered_isShownAgainAtOnce_aNormalNotificationIsNot() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:e")), .shown)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "plain")), .shown)
        let alarmId = try XCTUnwrap(notifier.serverId(forSchedule: "alarm:e"))
        let plainId = try XCTUnwrap(notifier.serverId(forSchedule: "plain"))
        try server.emitNotificationClosed(bus: bus, id: plainId, reason: 1)
        try server.emitNotificationClosed(bus: bus, id: alarmId, reason: 1)
        XCTAssertTrue(pump(notifier) { server.notifyArgs().count == 3 })
        let summaries = server.notifyArgs().map { $0["summary"] as? String }
        XCTAssertEqual(summaries, ["Wake up", "Stand up", "Wake up"])
        XCTAssertNotNil(notifier.serverId(forSchedule: "alarm:e"), "on screen again")
        XCTAssertNil(notifier.serverId(forSchedule: "plain"))
        XCTAssertTrue(log.entries.isEmpty, "expired is no answer: nothing recorded")
    }

    func testReshow_isBounded() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:b")), .shown)
        for round in 1...AlarmReshow.maxReshows {
            let id = try XCTUnwrap(notifier.serverId(forSchedule: "alarm:b"), "round \(round)")
            try server.emitNotificationClosed(bus: bus, id: id, reason: 1)
            XCTAssertTrue(pump(notifier) {
                server.notifyArgs().count == round + 1 && notifier.serverId(forSchedule: "alarm:b") != nil
            }, "round \(round)")
        }
        let last = try XCTUnwrap(notifier.serverId(forSchedule: "alarm:b"))
        try server.emitNotificationClosed(bus: bus, id: last, reason: 1)
        XCTAssertTrue(pump(notifier) { problems.contains { $0.contains("not shown again") } })
        XCTAssertEqual(server.notifyArgs().count, AlarmReshow.maxReshows + 1, "shown once, then at most 10 times again")
        XCTAssertNil(notifier.serverId(forSchedule: "alarm:b"))
    }

    func testServerRestart_showsTheAlarmAgainOnTheNewServer() throws {
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:r")), .shown)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "plain")), .shown)
        servers[0].stop()
        XCTAssertTrue(pump(notifier) { notifier.alarmsWaitingForServer == 1 })
        servers.append(try RecordingServer(bus: bus, caps: ["body", "actions", "persistence"]))
        XCTAssertTrue(pump(notifier) { server.notifyArgs().count == 1 })
        XCTAssertEqual(server.notifyArgs().first?["summary"] as? String, "Wake up", "only the alarm comes back")
        XCTAssertTrue(pump(notifier) { notifier.serverId(forSchedule: "alarm:r") != nil })
    }

    func testServerWithoutActionsOrPersistence_getsWhatItCanShow_loggedOnce() throws {
        servers[0].stop()
        servers.append(try RecordingServer(bus: bus, caps: ["body"]))
        XCTAssertTrue(pump(notifier) { notifier.serverPresent })
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:1")), .shown)
        XCTAssertEqual(showAndWait(notifier, alarm("alarm:2")), .shown)
        let args = try XCTUnwrap(server.notifyArgs().last)
        XCTAssertEqual(args["actions"] as? [String], [], "no buttons on a server without actions")
        XCTAssertEqual(hints(args)["urgency"]?["value"] as? Int, 2)
        XCTAssertEqual(hints(args)["resident"]?["value"] as? Bool, true)
        let lines = problems.filter { $0.contains("cannot show alarms in full") }
        XCTAssertEqual(lines.count, 1, "logged once: \(problems)")
        XCTAssertTrue(lines[0].contains("no 'actions'") && lines[0].contains("no 'persistence'"), lines[0])
    }
}
