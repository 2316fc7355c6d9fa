import Foundation
import XCTest

/// The daemon as a D-Bus service: readiness, introspection, errors, the stdout notifier.
final class DaemonBasicsTests: XCTestCase {
    func testRun_sendsReadyOnItsNotifySocket_andStoppingOnSigterm() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        // The harness already waited for READY=1 (it throws otherwise); check what came with it.
        XCTAssertTrue(h.notify!.received.contains("READY=1"))
        let socket = h.notify!
        XCTAssertEqual(h.stopDaemon(), 0, h.daemonStderr)
        XCTAssertTrue(socket.wait(for: "STOPPING=1"), "received: \(socket.received)")
    }

    func testRun_withWatchdogUsec_sendsWatchdogPings() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z", daemonEnvironment: ["WATCHDOG_USEC": "200000"])
        defer { h.tearDown() }
        XCTAssertTrue(h.notify!.wait(for: "WATCHDOG=1"), "received: \(h.notify!.received)")
    }

    func testIntrospection_listsEveryMethodAndSignalWithArgumentNames() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let table = try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "introspect", "--no-pager",
                                                       "org.schedd.Scheduler1", "/org/schedd/Scheduler1"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let expected = [
            (".Push", "method", "s", "s"), (".PushBatch", "method", "as", "as"), (".Track", "method", "ss", "uasb"),
            (".Cancel", "method", "s", "uasb"), (".CancelRun", "method", "s", "uasb"), (".List", "method", "uu", "s"),
            (".History", "method", "u", "s"), (".ListPage", "method", "su", "ss"), (".HistoryPage", "method", "tu", "st"), (".ClockShow", "method", "-", "s"), (".ClockSet", "method", "s", "s"),
            (".ClockAdvance", "method", "t", "s"), (".ClockZone", "method", "s", "s"),
            (".DeclareApp", "method", "s", "s"), (".ListAllAppsPage", "method", "su", "ss"),
            (".NotificationShown", "signal", "sss", "-"), (".NotificationCancelled", "signal", "sss", "-"),
            (".NotificationOpened", "signal", "sss", "-"), (".NotificationDismissed", "signal", "ss", "-"),
        ]
        let rows = table.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        for (name, kind, signature, result) in expected {
            XCTAssertTrue(rows.contains { $0.count >= 4 && Array($0[0...3]) == [name, kind, signature, result] },
                          "\(name) \(kind) \(signature) \(result) missing in:\n\(table.stdout)")
        }
        // Argument names come from the vtable (SD_BUS_METHOD_WITH_NAMES).
        let xml = try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "call", "org.schedd.Scheduler1",
                                                     "/org/schedd/Scheduler1", "org.freedesktop.DBus.Introspectable",
                                                     "Introspect"])
        XCTAssertEqual(xml.status, 0, xml.stderr)
        for fragment in ["<interface name=\\\"org.schedd.Scheduler1\\\">", "name=\\\"push\\\"", "name=\\\"outcomes\\\"",
                         "name=\\\"limit\\\"", "name=\\\"offset\\\"", "name=\\\"microseconds\\\"", "name=\\\"zone\\\"",
                         "name=\\\"event\\\"", "name=\\\"after\\\"", "name=\\\"before\\\"", "name=\\\"notification\\\""] {
            XCTAssertTrue(xml.stdout.contains(fragment), "\(fragment) missing in \(xml.stdout)")
        }
    }

    func testClient_withNoDaemon_exits3NamingTheBus() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        let result = try runProcess(Build.schedd, ["list", "--bus", bus.address])
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.contains(bus.address), result.stderr)
        XCTAssertTrue(result.stderr.contains("no schedd daemon"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }

    func testSecondDaemon_onTheSameBus_refusesToStart() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let second = try runProcess(Build.schedd, ["run", "--bus", h.bus.address, "--db", h.directory.file("other.db"),
                                                   "--notifier", "none", "--fake-clock", "2026-03-08T05:00:00Z"])
        XCTAssertEqual(second.status, 3)
        XCTAssertTrue(second.stderr.contains("already owned"), second.stderr)
    }

    func testClock_onRealClockDaemon_isRefusedWithNotFakeClock() throws {
        let h = try ScheddHarness(fakeClock: nil)
        defer { h.tearDown() }
        let show = try h.json(["clock", "show"]) as? [String: Any]
        XCTAssertEqual(show?["fake"] as? Bool, false)
        for arguments in [["clock", "advance", "1h"], ["clock", "set", "2030-01-01T00:00:00Z"], ["clock", "zone", "UTC"]] {
            let result = try h.cli(arguments + ["--json"])
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("--fake-clock"), result.stderr)
            XCTAssertNotNil(parseObject(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))?["error"])
        }
    }

    func testFakeClock_showSetAdvanceZone() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z", zone: "America/New_York")
        defer { h.tearDown() }
        var clock = try h.json(["clock", "show"]) as? [String: Any]
        XCTAssertEqual(clock?["now"] as? String, "2026-03-08T05:00:00Z")
        XCTAssertEqual(clock?["zone"] as? String, "America/New_York")
        XCTAssertEqual(clock?["fake"] as? Bool, true)
        clock = try h.json(["clock", "advance", "1d 6h"]) as? [String: Any]
        XCTAssertEqual(clock?["now"] as? String, "2026-03-09T11:00:00Z")
        clock = try h.json(["clock", "set", "2026-12-24T18:00:00+01:00"]) as? [String: Any]
        XCTAssertEqual(clock?["now"] as? String, "2026-12-24T17:00:00Z")
        clock = try h.json(["clock", "zone", "Europe/Berlin"]) as? [String: Any]
        XCTAssertEqual(clock?["zone"] as? String, "Europe/Berlin")
        let bad = try h.cli(["clock", "zone", "Mars/Olympus_Mons"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("Mars/Olympus_Mons"), bad.stderr)
        XCTAssertEqual(try h.cli(["clock", "advance", "soon"]).status, 2)
    }

    func testStdoutNotifier_printsOneLinePerShownNotification_withIdTitleBodyDueAt() throws {
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z")
        defer { h.tearDown() }
        let answers = try h.push(localPush(id: "run_1:a", at: "2026-06-01T09:00:00Z", title: "Stand up",
                                           extra: "\"body\":\"<b>now</b> & then\""))
        XCTAssertEqual(answers.first?["status"] as? String, "scheduled")
        XCTAssertEqual(answers.first?["next"] as? String, "2026-06-01T09:00:00Z")
        XCTAssertTrue(h.shown.isEmpty)
        try h.advance("59min")
        XCTAssertTrue(h.shown.isEmpty, "\(h.shown)")
        try h.advance("1min")
        let shown = h.shown
        XCTAssertEqual(shown.count, 1)
        XCTAssertEqual(shown.first?["id"] as? String, "run_1:a")
        XCTAssertEqual(shown.first?["title"] as? String, "Stand up")
        XCTAssertEqual(shown.first?["body"] as? String, "<b>now</b> & then")
        XCTAssertEqual(shown.first?["due"] as? String, "2026-06-01T09:00:00Z")
        XCTAssertEqual(shown.first?["at"] as? String, "2026-06-01T09:00:00Z")
        let fired = try h.history().filter { $0["event"] as? String == "fired" }
        XCTAssertEqual(fired.count, 1)
        XCTAssertEqual(fired.first?["late"] as? Double, 0)
        XCTAssertTrue(try h.list().isEmpty)
    }
}
