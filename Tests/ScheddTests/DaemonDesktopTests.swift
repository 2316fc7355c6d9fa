import Foundation
import XCTest

/// `schedd run --notifier desktop`: the daemon wired to ScheddDesktop's notifier, against the
/// recording notification server (Tests/Support/notify/recording_server.py) on a bus of its own.
final class DaemonDesktopTests: XCTestCase {
    func testDesktopNotifier_showsThroughNotify_recordsOpened_andClosesOnCancel() throws {
        let notifyBus = try PrivateBus()
        defer { notifyBus.stop() }
        let server = try RecordingServer(bus: notifyBus)
        defer { server.stop() }
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z",
                                  notifierArguments: ["--notifier", "desktop", "--notify-bus", notifyBus.address])
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "run_1:a", at: "2026-06-01T09:00:00Z", title: "Stand up",
                                 extra: "\"actions\":[{\"id\":\"snooze\",\"title\":\"Snooze\"}]"))
        _ = try h.push(localPush(id: "run_1:b", at: "2026-06-01T09:05:00Z", title: "Sit down"))
        try h.advance("1h 10min")
        // The advance is answered once both are recorded and handed over; Notify is asynchronous.
        XCTAssertTrue(waitUntil(10) { server.calls("Notify").count == 2 }, h.daemonStderr)
        let notify = server.calls("Notify")
        XCTAssertEqual(notify.compactMap { ($0["args"] as? [String: Any])?["summary"] as? String }, ["Stand up", "Sit down"])
        XCTAssertEqual(try h.history().filter { $0["event"] as? String == "fired" }.count, 2)

        let firstId = try XCTUnwrap(notify.first?["reply"] as? Int)
        try server.emitActionInvoked(bus: notifyBus, id: UInt32(firstId), key: "snooze")
        var opened: [String: Any]?
        for _ in 0..<100 where opened == nil {
            opened = try h.history().first { $0["event"] as? String == "opened" }
            if opened == nil { usleep(50_000) }
        }
        XCTAssertEqual(opened?["id"] as? String, "run_1:a", h.daemonStderr)
        XCTAssertEqual(opened?["reason"] as? String, "action:snooze")

        // A new push under a shown id cancels it first: the notification on screen is closed.
        let secondId = try XCTUnwrap(notify.last?["reply"] as? Int)
        _ = try h.push("{\"bk\":{\"cancel\":{\"id\":\"run_1:b\"}}}")
        var closed: [Int] = []
        for _ in 0..<100 where closed.isEmpty {
            closed = server.calls("CloseNotification").compactMap { ($0["args"] as? [String: Any])?["id"] as? Int }
            if closed.isEmpty { usleep(50_000) }
        }
        XCTAssertEqual(closed, [secondId], "\(server.records())")
    }
}
