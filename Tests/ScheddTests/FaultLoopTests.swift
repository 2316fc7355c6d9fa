import Foundation
import Glibc
import XCTest

/// CONTRACT §9, the event loop's half (docs/faults.md), each fault caused for real against the real
/// daemon on private dbus-daemons with stock limits:
/// - the bus daemon killed by PID: schedd exits with a failure status within 5 s (it does not linger);
/// - a notification server that takes Notify and never answers: every call is answered within 1 s,
///   the deliveries are recorded `failed` and retried when a normal server takes the name, and the
///   watchdog keeps being fed by the loop;
/// - the watchdog is fed from the loop itself: a stopped loop stops the pings.
final class FaultLoopTests: XCTestCase {
    /// Waits up to `seconds` (a deadline to stop waiting) for `process` to exit.
    private func waitForExit(_ process: Process, seconds: Double) -> Bool {
        waitUntil(seconds) { !process.isRunning }
    }

    func testBusDaemonKilled_daemonExitsWithFailureStatus_within5s() throws {
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "bus:a", at: "2026-06-01T09:00:00Z"))
        let daemon = try XCTUnwrap(h.daemon)
        XCTAssertEqual(kill(h.bus.pid, SIGKILL), 0)
        XCTAssertTrue(waitForExit(daemon, seconds: 5), "schedd still running 5 s after its bus daemon was killed")
        h.notify?.drain()
        XCTAssertFalse(daemon.isRunning)
        XCTAssertNotEqual(daemon.terminationStatus, 0, "a lost bus must end with a failure status (Restart=on-failure)")
        XCTAssertTrue(h.daemonStderr.contains("lost the connection to"), h.daemonStderr)
        XCTAssertTrue(h.notify?.received.contains { $0.hasPrefix("STATUS=Failed: lost the connection") } ?? false,
                      "\(h.notify?.received ?? [])")
    }

    func testHungNotificationServer_callsAnsweredWithin1s_deliveriesFailed_thenRetriedOnANormalServer() throws {
        let notifyBus = try PrivateBus()
        defer { notifyBus.stop() }
        let hung = try RecordingServer(bus: notifyBus, hang: true)
        var hungStopped = false
        defer { if !hungStopped { hung.stop() } }
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z",
                                  daemonEnvironment: ["WATCHDOG_USEC": "2000000"],
                                  notifierArguments: ["--notifier", "desktop", "--notify-bus", notifyBus.address])
        defer { h.tearDown() }
        let ids = (1...6).map { "hang:\($0)" }
        for (i, id) in ids.enumerated() {
            _ = try h.push(localPush(id: id, at: "2026-06-01T09:0\(i):00Z", title: "Hung \(i)"))
            h.notify?.drain()
        }

        // Six notifications fall due while the server hangs: the advance and every other call are
        // answered within 1 s (the notifier's calls time out after 2 s without blocking anything).
        func timed(_ arguments: [String]) throws -> Double {
            let start = ContinuousClock.now
            h.notify?.drain()  // WATCHDOG=1 datagrams (see NotifySocket.drain)
            let result = try h.cli(arguments + ["--json"])
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            return secondsSince(start)
        }
        XCTAssertLessThan(try timed(["clock", "advance", "1h 10min"]), 1.0, "clock advance waited on the hung server")
        for _ in 0..<5 {
            XCTAssertLessThan(try timed(["clock", "show"]), 1.0, "clock show waited on the hung server")
            XCTAssertLessThan(try timed(["list"]), 1.0, "list waited on the hung server")
        }
        XCTAssertGreaterThanOrEqual(hung.calls("GetCapabilities").count, 1, "the daemon never called the server")

        // Once the call timed out, every delivery is recorded `failed`, none as shown.
        var failed: [String] = []
        XCTAssertTrue(waitUntil(15) {
            h.notify?.drain()
            failed = ((try? h.history()) ?? []).filter { $0["event"] as? String == "failed" }.compactMap { $0["id"] as? String }
            return Set(failed) == Set(ids)
        }, "failed: \(failed)\n\(h.daemonStderr)")
        XCTAssertEqual(failed.count, ids.count, "each delivery failed once: \(failed)")
        XCTAssertTrue(h.daemonStderr.contains("is not answering"), h.daemonStderr)

        // The watchdog was fed all along (the loop never stopped).
        _ = h.notify?.wait(for: "never", deadlineSeconds: 1.5)
        XCTAssertGreaterThanOrEqual(h.notify?.received.filter { $0 == "WATCHDOG=1" }.count ?? 0, 3,
                                    "\(h.notify?.received ?? [])")

        // A normal server takes the name: what failed is retried there, once each.
        hung.stop()
        hungStopped = true
        let normal = try RecordingServer(bus: notifyBus)
        defer { normal.stop() }
        XCTAssertTrue(waitUntil(15) { h.notify?.drain(); return Set(normal.notifyArgs().compactMap { $0["summary"] as? String }).count == ids.count },
                      "retried on the new server: \(normal.notifyArgs().map { $0["summary"] ?? "" })\n\(h.daemonStderr)")
        XCTAssertEqual(normal.calls("Notify").count, ids.count)
        let retried = try h.history().filter { $0["event"] as? String == "fired" && $0["reason"] as? String == "retry" }
        XCTAssertEqual(Set(retried.compactMap { $0["id"] as? String }), Set(ids))
    }

    func testWatchdog_isFedByTheLoop_andStopsWhenTheLoopStops() throws {
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z", daemonEnvironment: ["WATCHDOG_USEC": "400000"])
        defer { h.tearDown() }
        let socket = try XCTUnwrap(h.notify)
        let pid = try XCTUnwrap(h.daemon).processIdentifier
        func pingsDuring(_ seconds: Double) -> Int {
            let before = socket.received.filter { $0 == "WATCHDOG=1" }.count
            _ = socket.wait(for: "never", deadlineSeconds: seconds)
            return socket.received.filter { $0 == "WATCHDOG=1" }.count - before
        }
        XCTAssertGreaterThanOrEqual(pingsDuring(1.2), 2, "no WATCHDOG=1 from a running loop: \(socket.received)")
        // The loop stopped (SIGSTOP stands for a loop stuck in a callback: nothing else sends the pings).
        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        _ = pingsDuring(0.2)  // a datagram already on its way
        XCTAssertEqual(pingsDuring(1.2), 0, "pings while the loop was stopped")
        XCTAssertEqual(kill(pid, SIGCONT), 0)
        XCTAssertGreaterThanOrEqual(pingsDuring(1.2), 2, "no pings after the loop went on")
        // And the loop still serves calls.
        XCTAssertEqual(try h.cli(["clock", "show", "--json"]).status, 0)
    }
}
