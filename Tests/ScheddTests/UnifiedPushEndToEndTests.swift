import Foundation
import XCTest

/// The whole path of a push from the network to the screen, on real parts: the test distributor
/// (playing push server and app server: RFC 8291 with the app's keys) → Connector2.Message → schedd
/// (decrypt, push, commit, reply) → due on the fake clock → the desktop notifier → Notify on the
/// recording notification server.
final class UnifiedPushEndToEndTests: XCTestCase {
    func testPushFromTheDistributor_isShownThroughNotify_whenDue() throws {
        let notifyBus = try PrivateBus()
        defer { notifyBus.stop() }
        let server = try RecordingServer(bus: notifyBus)
        defer { server.stop() }
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z",
                                  notifierArguments: ["--notifier", "desktop", "--notify-bus", notifyBus.address])
        defer { h.tearDown() }
        let distributor = try TestDistributor(address: h.bus.address, directory: h.directory)
        defer { distributor.stop() }

        let registration = try h.registerForPushes("org.example.Lessons", description: "Lesson reminders")
        let push = #"{"bk":{"messageId":"srv-7","local":{"id":"run_7:lesson","at":"2026-06-01T09:00:00Z","#
            + #""title":"Time for your lesson","body":"Ten minutes of Spanish"}}}"#
        let answer = try distributor.send(push, to: registration, id: "m-1")
        XCTAssertEqual((answer["reply"] as? [String: Any])?["id"] as? String, "m-1")
        XCTAssertTrue(server.calls("Notify").isEmpty, "nothing shown before it is due")

        try h.advance("1h")
        // ClockAdvance answers once the delivery has started; the server writes its record when the call
        // reaches it (the other end-to-end tests wait the same way).
        XCTAssertTrue(waitUntil(10) { !server.calls("Notify").isEmpty }, "Notify reached the server")
        let shown = server.notifyArgs()
        XCTAssertEqual(shown.map { $0["summary"] as? String }, ["Time for your lesson"])
        XCTAssertEqual(shown.first?["body"] as? String, "Ten minutes of Spanish")
        // Shown as the app the registration belongs to (no desktop file here: its id).
        XCTAssertEqual(shown.first?["app_name"] as? String, "org.example.Lessons")
        let hints = shown.first?["hints"] as? [String: Any]
        XCTAssertEqual((hints?["desktop-entry"] as? [String: Any])?["value"] as? String, "org.example.Lessons")
        let fired = try XCTUnwrap(try h.history(app: "org.example.Lessons").first { $0["event"] as? String == "fired" })
        XCTAssertEqual(fired["id"] as? String, "run_7:lesson")
        XCTAssertEqual(fired["messageId"] as? String, "srv-7")
        print("end to end: Message answered in \(answer["elapsed_ns"] ?? "?") ns; Notify: \(shown)")
    }
}
