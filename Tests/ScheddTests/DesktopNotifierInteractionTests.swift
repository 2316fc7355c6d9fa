import Foundation
import Scheduler
import ScheddDesktop
import XCTest

/// ActionInvoked / NotificationClosed from the server → the `.interaction` outcome (opened / dismissed).
final class DesktopNotifierInteractionTests: XCTestCase {
    private var bus: PrivateBus!
    private var server: RecordingServer!
    private var notifier: DesktopNotifier!
    private let log = InteractionLog()

    override func setUpWithError() throws {
        bus = try PrivateBus()
        server = try RecordingServer(bus: bus)
        notifier = try DesktopNotifier(address: bus.address)
        log.attach(to: notifier)
    }

    override func tearDown() {
        notifier = nil
        server?.stop()
        bus?.stop()
    }

    private func show(_ id: String) throws -> UInt32 {
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: id, actions: [NotificationAction(id: "snooze", title: "Snooze")])),
                       .shown)
        return try XCTUnwrap(notifier.serverId(forSchedule: id))
    }

    func testActionInvoked_reportsOpenedWithActionKey() throws {
        let serverId = try show("run_7:water")
        try server.emitActionInvoked(bus: bus, id: serverId, key: "snooze")
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "run_7:water", event: .opened, reason: "action:snooze")])
    }

    func testDefaultAction_reportsOpenedWithDefaultKey() throws {
        let serverId = try show("d")
        try server.emitActionInvoked(bus: bus, id: serverId, key: "default")
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "d", event: .opened, reason: "action:default")])
    }

    func testClosedByUser_reportsDismissed_andForgetsTheId() throws {
        let serverId = try show("x")
        try server.emitNotificationClosed(bus: bus, id: serverId, reason: 2)
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "x", event: .dismissed, reason: nil)])
        XCTAssertNil(notifier.serverId(forSchedule: "x"))
        notifier.close(app: Engine.defaultApp, id: "x")
        XCTAssertEqual(server.calls("CloseNotification").count, 0, "a dismissed notification is not on screen")
    }

    func testCloseAfterAction_isOpenedOnly_notDismissed() throws {
        let serverId = try show("y")
        try server.emitActionInvoked(bus: bus, id: serverId, key: "snooze")
        try server.emitNotificationClosed(bus: bus, id: serverId, reason: 2)
        // A marker signal for another shown notification proves both earlier signals were dispatched.
        let marker = try show("marker")
        try server.emitNotificationClosed(bus: bus, id: marker, reason: 2)
        XCTAssertTrue(pump(notifier) { log.entries.contains { $0.id == "marker" } })
        XCTAssertEqual(log.entries, [.init(id: "y", event: .opened, reason: "action:snooze"),
                                     .init(id: "marker", event: .dismissed, reason: nil)])
    }

    func testExpiredAndClosedByCall_reportNothing_butForgetTheId() throws {
        let expired = try show("expired")
        let closed = try show("closed-by-call")
        let undefined = try show("undefined")
        try server.emitNotificationClosed(bus: bus, id: expired, reason: 1)
        try server.emitNotificationClosed(bus: bus, id: closed, reason: 3)
        try server.emitNotificationClosed(bus: bus, id: undefined, reason: 4)
        let marker = try show("marker")
        try server.emitNotificationClosed(bus: bus, id: marker, reason: 2)
        XCTAssertTrue(pump(notifier) { log.entries.contains { $0.id == "marker" } })
        XCTAssertEqual(log.entries.map(\.id), ["marker"])
        for id in ["expired", "closed-by-call", "undefined"] { XCTAssertNil(notifier.serverId(forSchedule: id), id) }
    }

    func testCloseOnCancel_closedSignalReason3_isNotADismissal() throws {
        _ = try show("cancelled")
        notifier.close(app: Engine.defaultApp, id: "cancelled")  // the server answers with NotificationClosed(id, 3)
        let marker = try show("marker")
        try server.emitNotificationClosed(bus: bus, id: marker, reason: 2)
        XCTAssertTrue(pump(notifier) { log.entries.contains { $0.id == "marker" } })
        XCTAssertEqual(log.entries.map(\.id), ["marker"])
    }

    func testSignalsForIdsNotOurs_areIgnored() throws {
        let ours = try show("ours")
        try server.emitActionInvoked(bus: bus, id: ours + 100, key: "snooze")
        try server.emitNotificationClosed(bus: bus, id: ours + 101, reason: 2)
        try server.emitNotificationClosed(bus: bus, id: ours, reason: 2)
        XCTAssertTrue(pump(notifier) { !log.entries.isEmpty })
        XCTAssertEqual(log.entries, [.init(id: "ours", event: .dismissed, reason: nil)])
    }
}
