import Foundation
import ScheddBus
import Scheduler
import ScheddDesktop
import XCTest

/// Server absent, appearing, restarting or hung; the bus going away; sd-event integration.
final class DesktopNotifierLifecycleTests: XCTestCase {
    private var bus: PrivateBus!
    private var servers: [RecordingServer] = []

    override func setUpWithError() throws { bus = try PrivateBus() }

    override func tearDown() {
        servers.forEach { $0.stop() }
        bus?.stop()
    }

    private func startServer(caps: [String] = ["body", "body-markup", "actions"], hang: Bool = false) throws
        -> RecordingServer {
        let server = try RecordingServer(bus: bus, caps: caps, hang: hang)
        servers.append(server)
        return server
    }

    func testServerAbsent_fails_thenServerAppears_firesOnServerAppeared_andReShowWorks() throws {
        let notifier = try DesktopNotifier(address: bus.address)
        let log = InteractionLog()
        log.attach(to: notifier)
        let note = dueNotification(id: "run_2:late", title: "Retry me")
        XCTAssertFalse(notifier.serverPresent)
        guard case .failed(let reason) = showAndWait(notifier, note) else { return XCTFail("shown without a server") }
        XCTAssertTrue(reason.contains("no notification server"), reason)
        XCTAssertEqual(log.serverAppeared, 0)

        let server = try startServer()
        XCTAssertTrue(pump(notifier) { log.serverAppeared > 0 }, "NameOwnerChanged not seen")
        XCTAssertEqual(log.serverAppeared, 1)
        XCTAssertTrue(notifier.serverPresent)
        XCTAssertEqual(showAndWait(notifier, note), .shown)
        XCTAssertEqual(server.notifyArgs().map { $0["summary"] as? String }, ["Retry me"])
    }

    /// The daemon's `.serverAppeared` calls Engine.retryFailed, which calls show from inside the
    /// NameOwnerChanged dispatch: sending an asynchronous call from inside sd-bus dispatch must work.
    func testOnServerAppeared_mayShowFromInsideTheCallback() throws {
        let notifier = try DesktopNotifier(address: bus.address)
        let note = dueNotification(id: "retry", title: "Retried inside the callback")
        XCTAssertNotEqual(showAndWait(notifier, note), .shown)
        var retried: [DeliveryResult] = []
        var delivered: [DueNotification] = []
        let subscription = notifier.outcomes.subscribe { outcome in
            switch outcome {
            case .serverAppeared: retried.append(notifier.show(note))
            case .delivered(let n): delivered.append(n)
            default: break
            }
        }
        let server = try startServer()
        XCTAssertTrue(pump(notifier) { !delivered.isEmpty })
        XCTAssertEqual(retried, [.pending])
        XCTAssertEqual(delivered, [note])
        XCTAssertEqual(server.notifyArgs().map { $0["summary"] as? String }, ["Retried inside the callback"])
        notifier.outcomes.cancel(subscription)
    }

    func testServerRestart_forgetsOldIds_andRereadsCapabilities() throws {
        let first = try startServer(caps: ["body", "body-markup"])
        let notifier = try DesktopNotifier(address: bus.address)
        let log = InteractionLog()
        log.attach(to: notifier)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "keep", body: "a & b")), .shown)
        XCTAssertNotNil(notifier.serverId(forSchedule: "keep"))
        XCTAssertEqual(first.notifyArgs().first?["body"] as? String, "a &amp; b")

        first.stop()
        XCTAssertTrue(pump(notifier) { notifier.serverId(forSchedule: "keep") == nil }, "old ids kept after the server left")
        XCTAssertNil(notifier.capabilities)
        XCTAssertFalse(notifier.serverPresent)
        let second = try startServer(caps: ["body"])
        XCTAssertTrue(pump(notifier) { log.serverAppeared > 0 })
        notifier.close(app: Engine.defaultApp, id: "keep")
        XCTAssertEqual(second.calls("CloseNotification").count, 0, "an id of the old server was sent to the new one")
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "keep", body: "a & b")), .shown)
        let args = try XCTUnwrap(second.notifyArgs().first)
        XCTAssertEqual(args["replaces_id"] as? Int, 0)
        XCTAssertEqual(args["body"] as? String, "a & b", "capabilities of the new server (no body-markup)")
        XCTAssertEqual(second.calls("GetCapabilities").count, 1)
    }

    func testHungServer_failsAfterTheCallTimeout_withoutHanging() throws {
        _ = try startServer(hang: true)
        var configuration = DesktopNotifier.Configuration()
        configuration.callTimeoutMicroseconds = 200_000
        let notifier = try DesktopNotifier(address: bus.address, configuration: configuration)
        guard case .failed(let reason) = showAndWait(notifier, dueNotification(id: "h")) else { return XCTFail("shown") }
        XCTAssertTrue(reason.contains("did not answer GetCapabilities"), reason)
    }

    func testBusDaemonGone_showFails_withoutCrashOrHang() throws {
        let notifier = try DesktopNotifier(address: bus.address)
        bus.stop()
        pump(notifier, upTo: 0.3) { false }
        guard case .failed(let reason) = showAndWait(notifier, dueNotification(id: "g")) else { return XCTFail("shown") }
        XCTAssertTrue(reason.contains("unreachable"), reason)
    }

    func testUnreachableAddress_throwsFromInit() {
        XCTAssertThrowsError(try DesktopNotifier(address: "unix:path=/nonexistent/schedd-test-bus"))
    }

    func testAttachedToSdEvent_signalsAreDispatchedByTheLoop() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        let log = InteractionLog()
        log.attach(to: notifier)
        let event = try EventLoop()
        defer { notifier.detach() }
        try notifier.attach(to: event)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "ev")), .shown)
        try server.emitActionInvoked(bus: bus, id: try XCTUnwrap(notifier.serverId(forSchedule: "ev")), key: "default")
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(5) * 1000))
        while log.entries.isEmpty && ContinuousClock.now < deadline { event.runOnce(waitingUpTo: 20_000) }
        XCTAssertEqual(log.entries, [.init(id: "ev", event: .opened, reason: "action:default")])
    }

    /// Measures Notify round trips (call start → reply) and call start → server receive, over 40
    /// notifications. Prints the figures; asserts only that all were shown (never timings).
    func testMeasure_notifyRoundTrip_over40Notifications() throws {
        let server = try startServer()
        let notifier = try DesktopNotifier(address: bus.address)
        XCTAssertEqual(showAndWait(notifier, dueNotification(id: "warmup")), .shown)  // reads capabilities
        var roundTrips: [Double] = []
        var starts: [Double] = []
        for index in 0..<40 {
            // Wall-clock times: compared below with the server's own time stamps of each Notify.
            let start = Date().timeIntervalSince1970
            XCTAssertEqual(showAndWait(notifier, dueNotification(id: "m\(index)", title: "n\(index)")), .shown)
            roundTrips.append((Date().timeIntervalSince1970 - start) * 1000)
            starts.append(start)
        }
        let received = server.calls("Notify").dropFirst().compactMap { $0["t"] as? Double }
        XCTAssertEqual(received.count, 40)
        let toServer = zip(starts, received).map { ($1 - $0) * 1000 }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        print(String(format: "MEASURE notify-roundtrip-ms p50=%.3f p99=%.3f max=%.3f; call-start→server-receive-ms p50=%.3f p99=%.3f",
                     percentile(roundTrips, 0.5), percentile(roundTrips, 0.99), roundTrips.max() ?? 0,
                     percentile(toServer, 0.5), percentile(toServer, 0.99)))
    }
}

/// `waitForBus`: the bus itself is absent at start (a kiosk user's session bus), then comes and goes.
final class DesktopNotifierReconnectTests: XCTestCase {
    private var directory = ""
    private var buses: [PrivateBus] = []
    private var servers: [RecordingServer] = []

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-reconnect-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        servers.forEach { $0.stop() }
        buses.forEach { $0.stop() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs the loop until `condition` holds (or 10 s pass).
    private func run(_ event: EventLoop, until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(10) * 1000))
        while !condition() && ContinuousClock.now < deadline { event.runOnce(waitingUpTo: 20_000) }
        return condition()
    }

    func testBusAbsentAtStart_thenUp_thenRestarted_reconnectsAndReportsServer() throws {
        let address = "unix:path=\(directory)/bus"
        XCTAssertThrowsError(try DesktopNotifier(address: address), "without waitForBus an absent bus is an error")
        var configuration = DesktopNotifier.Configuration()
        configuration.reconnectIntervalMicroseconds = 50_000
        let notifier = try DesktopNotifier(address: address, configuration: configuration, waitForBus: true)
        let log = InteractionLog()
        log.attach(to: notifier)
        let event = try EventLoop()
        defer { notifier.detach() }
        try notifier.attach(to: event)
        XCTAssertFalse(notifier.isConnected)
        guard case .failed(let reason) = showAndWait(notifier, dueNotification(id: "k")) else { return XCTFail("shown") }
        XCTAssertTrue(reason.contains("unreachable"), reason)

        for round in 1...2 {
            let bus = try PrivateBus(address: address)
            buses.append(bus)
            let server = try RecordingServer(bus: bus)
            servers.append(server)
            XCTAssertTrue(run(event) { log.serverAppeared >= round }, "round \(round): server not reported")
            XCTAssertEqual(showAndWait(notifier, dueNotification(id: "k", title: "round \(round)")), .shown)
            XCTAssertEqual(server.notifyArgs().first?["summary"] as? String, "round \(round)")
            XCTAssertEqual(server.notifyArgs().first?["replaces_id"] as? Int, 0, "ids of an earlier bus are forgotten")
            server.stop()
            bus.stop()
            XCTAssertTrue(run(event) { !notifier.isConnected }, "round \(round): disconnect not noticed")
            // While disconnected the loop must sleep between reconnect attempts, not spin.
            var wakeups = 0
            let quietUntil = ContinuousClock.now + .milliseconds(Int64(Double(0.3) * 1000))
            while ContinuousClock.now < quietUntil { event.runOnce(waitingUpTo: 100_000); wakeups += 1 }
            XCTAssertLessThan(wakeups, 100, "round \(round): the loop spins while the bus is gone")
        }
    }
}
