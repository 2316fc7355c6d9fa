import Foundation
import Glibc
import XCTest

/// Distributors coming and going, the override, the legacy Connector1, and D-Bus activation of
/// schedd by a distributor's Message.
final class UnifiedPushDistributorTests: XCTestCase {
    var harness: ScheddHarness?
    var distributors: [TestDistributor] = []
    var activated: pid_t?

    override func tearDown() {
        distributors.forEach { $0.stop() }
        if let activated { kill(activated, SIGTERM) }
        harness?.tearDown()
    }

    func start(_ name: String, _ extra: [String] = []) throws -> TestDistributor {
        let distributor = try TestDistributor(address: harness!.bus.address, directory: harness!.directory, name: name,
                                              extra: extra)
        distributors.append(distributor)
        return distributor
    }

    func testNoDistributor_registerSaysSo_thenTheRegistrationCompletesWhenOneAppears() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let (status, text) = try harness!.unifiedPush("Register", "ss", ["org.example.Reminders", ""])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(text.contains("no UnifiedPush distributor on the bus"), text)
        XCTAssertEqual(try harness!.pushRegistrations()["org.example.Reminders"]?["state"] as? String, "no-distributor")
        let distributor = try start("late")
        XCTAssertTrue(waitUntil(30) {
            (try? self.harness!.pushRegistrations()["org.example.Reminders"]?["endpoint"] as? String) != nil
        }, "registered once a distributor appeared")
        XCTAssertEqual(distributor.registeredTokens().count, 1)
        XCTAssertEqual(try harness!.pushRegistrations()["org.example.Reminders"]?["distributor"] as? String,
                       "org.unifiedpush.Distributor.late")
    }

    func testRegistrations_areBounded_at1000() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        // 1000 apps registered without a distributor (each stored, answered NoDistributor), then one more.
        let script = """
            import dbus, sys
            bus = dbus.bus.BusConnection(sys.argv[1])
            up = dbus.Interface(bus.get_object("org.schedd.Scheduler1", "/org/schedd/Scheduler1"), "org.schedd.UnifiedPush1")
            for i in range(1001):
                try:
                    up.Register("org.example.App%d" % i, "")
                except dbus.exceptions.DBusException as error:
                    print(i, error.get_dbus_name(), error.get_dbus_message())
            """
        let result = try runProcess(DesktopHarness.python, ["-c", script, harness!.bus.address])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.lines
        XCTAssertEqual(lines.filter { $0.contains("NoDistributor") }.count, 1000, "\(lines.prefix(3))")
        XCTAssertEqual(lines.last, "1000 org.schedd.UnifiedPush1.Error.InvalidArgument Register: schedd keeps at most 1000 "
                       + "push registrations; unregister an app first")
        XCTAssertEqual(try harness!.pushRegistrations().count, 1000)
    }

    func testAppAtItsQuota_messageIsNotAcknowledged_andAppliesOnceThereIsRoom() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z",
                                    notifierArguments: ["--notifier", "stdout", "--max-pending-per-app", "1"])
        let distributor = try start("test")
        let registration = try harness!.registerForPushes("org.example.A")
        _ = try distributor.send(localPush(id: "one", at: "2026-03-01T10:05:00Z"), to: registration, id: "m1")
        let full = try distributor.send(localPush(id: "two", at: "2026-03-01T10:06:00Z"), to: registration, id: "m2")
        XCTAssertNil(full["reply"] as? [String: Any], "acknowledged although not applied: \(full)")
        XCTAssertTrue((full["error"] as? String)?.hasPrefix("org.schedd.UnifiedPush1.Error.QuotaExceeded") == true, "\(full)")
        XCTAssertEqual(try harness!.pushRegistrations()["org.example.A"]?["rejected"] as? Int, 0)
        try harness!.advance("5min")  // "one" fires: room again
        let again = try distributor.send(localPush(id: "two", at: "2026-03-01T10:06:00Z"), to: registration, id: "m2")
        XCTAssertEqual((again["reply"] as? [String: Any])?["id"] as? String, "m2", "\(again)")
        XCTAssertEqual(try harness!.list(app: "org.example.A").map { $0["id"] as? String }, ["two"])
    }

    /// Issue 31 item 6 (the UnifiedPush D-Bus spec's rule): with two distributors and no choice of the
    /// user, neither is picked — main 067d7ec registered with the first name in byte order, so a
    /// distributor named `aaaa` took every app; the user's choice (the override) wins.
    func testTwoDistributors_withoutTheUsersChoice_noneIsPicked_andTheOverrideWins() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let zeta = try start("zeta")
        let alpha = try start("alpha")
        let (status, text) = try harness!.unifiedPush("Register", "ss", ["org.example.A", "reminders"])
        XCTAssertTrue(status != 0 || text.contains("several UnifiedPush distributors"), "\(status) \(text)")
        XCTAssertTrue(text.contains("several UnifiedPush distributors") && text.contains("--push-distributor"), text)
        XCTAssertEqual(alpha.registeredTokens().count, 0)
        XCTAssertEqual(zeta.registeredTokens().count, 0)

        harness!.stopDaemon()
        let overridden = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z", daemonEnvironment: [:],
                                           notifierArguments: ["--notifier", "stdout", "--push-distributor", "zeta"])
        defer { overridden.tearDown() }
        let z = try TestDistributor(address: overridden.bus.address, directory: overridden.directory, name: "zeta")
        let a = try TestDistributor(address: overridden.bus.address, directory: overridden.directory, name: "alpha")
        defer { z.stop(); a.stop() }
        XCTAssertEqual(try overridden.registerForPushes("org.example.A")["distributor"] as? String,
                       "org.unifiedpush.Distributor.zeta")
        XCTAssertEqual(a.registeredTokens().count, 0)
    }

    func testDistributorLeaves_theAppMovesToAnother_withTheSameTokenAndANewEndpoint() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let first = try start("alpha")
        let before = try harness!.registerForPushes("org.example.A")
        XCTAssertEqual(before["distributor"] as? String, "org.unifiedpush.Distributor.alpha")
        let second = try start("beta")  // the registration keeps the distributor it has
        first.stop()                    // then beta is the single one present
        XCTAssertTrue(waitUntil(30) {
            (try? self.harness!.pushRegistrations()["org.example.A"]?["distributor"] as? String) == "org.unifiedpush.Distributor.beta"
                && (try? self.harness!.pushRegistrations()["org.example.A"]?["endpoint"] as? String) != nil
        })
        XCTAssertEqual(second.registeredTokens(), first.registeredTokens(), "the same token")
        let after = try XCTUnwrap(harness!.pushRegistrations()["org.example.A"])
        XCTAssertNotEqual(after["endpoint"] as? String, before["endpoint"] as? String)
        // The second distributor subscribes on its first Register, after the move: it hears the new endpoint.
        XCTAssertTrue(waitUntil(30) { second.signals("EndpointChanged").count >= 1 })
        let answer = try second.send(localPush(id: "moved", at: "2026-03-01T10:05:00Z"), to: after, id: "m1")
        XCTAssertEqual((answer["reply"] as? [String: Any])?["id"] as? String, "m1")
        XCTAssertEqual(try harness!.list(app: "org.example.A").map { $0["id"] as? String }, ["moved"])
    }

    /// Issue 31 item 6: a change of a distributor name's owner is logged, and the new owner is not
    /// trusted with the apps' messages until it confirms a registration. Here the distributor stops and
    /// another process (which serves no Distributor object, so it never confirms) takes its name and
    /// sends a Message for the app's token: refused. On main 067d7ec it was accepted (acknowledged).
    func testNewOwnerOfTheDistributorName_isNotTrusted_untilItConfirms() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let h = harness!
        let real = try start("test")
        _ = try h.registerForPushes("org.example.A")
        let token = try XCTUnwrap(real.registeredTokens().first)
        real.stop()
        let script = """
            import sys, time, dbus
            bus = dbus.bus.BusConnection(sys.argv[1])
            bus.request_name("org.unifiedpush.Distributor.test")
            deadline = time.monotonic() + 30
            while "changed owner" not in open(sys.argv[3]).read() and time.monotonic() < deadline:
                time.sleep(0.05)
            o = bus.get_object("org.schedd.Scheduler1", "/org/unifiedpush/Connector")
            try:
                r = o.Message({"token": sys.argv[2], "message": dbus.ByteArray(b"forged" * 20), "id": "f1"},
                              dbus_interface="org.unifiedpush.Connector2")
                print("accepted", dict(r))
            except dbus.exceptions.DBusException as e:
                print("refused", e.get_dbus_name())
            """
        let stderrFile = h.directory.file("stderr.1")
        let impostor = try runProcess(DesktopHarness.python, ["-c", script, h.bus.address, token, stderrFile])
        XCTAssertTrue(h.daemonStderr.contains("the distributor org.unifiedpush.Distributor.test changed owner"), h.daemonStderr)
        XCTAssertTrue(impostor.stdout.hasPrefix("refused org.freedesktop.DBus.Error.AccessDenied"),
                      "\(impostor.stdout) \(impostor.stderr)")
        XCTAssertEqual(try h.pushRegistrations()["org.example.A"]?["rejected"] as? Int ?? 0, 0, "nothing of it was looked at")

        // A real distributor taking the name again confirms (Register) and is trusted.
        let back = try start("test")
        XCTAssertTrue(waitUntil(30) { back.registeredTokens().contains(token) })
        XCTAssertTrue(waitUntil(30) { (try? h.pushRegistrations()["org.example.A"]?["endpoint"] as? String) != nil })
        let registration = try XCTUnwrap(try h.pushRegistrations()["org.example.A"])
        XCTAssertTrue(waitUntil(30) { h.daemonStderr.contains("confirmed the registration of org.example.A") }, h.daemonStderr)
        let answer = try back.send(localPush(id: "after", at: "2026-03-01T10:05:00Z"), to: registration, id: "m2")
        XCTAssertEqual((answer["reply"] as? [String: Any])?["id"] as? String, "m2", "\(answer)")
        XCTAssertEqual(try h.list(app: "org.example.A").map { $0["id"] as? String }, ["after"])
    }

    func testDistributorRefuses_registerFailsWithItsReason() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        _ = try start("picky", ["--fail-register", "ACTION_REQUIRED"])
        let (status, text) = try harness!.unifiedPush("Register", "ss", ["org.example.A", ""])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(text.contains("refused the registration: REGISTRATION_FAILED (ACTION_REQUIRED)"), text)
        XCTAssertEqual(try harness!.pushRegistrations()["org.example.A"]?["state"] as? String, "failed")
    }

    func testEndpointChangedByTheDistributor_isStored_andSignalled() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let distributor = try start("test")
        let before = try harness!.registerForPushes("org.example.A")
        let result = try runProcess("/usr/bin/busctl", ["--address=\(harness!.bus.address)", "--json=short", "--", "call",
                                                        "org.unifiedpush.Distributor.test", "/org/schedd/test/Distributor",
                                                        "org.schedd.test.DistributorControl", "ChangeEndpoint", "s",
                                                        before["endpoint"] as? String ?? ""])
        let changed = try XCTUnwrap(busctlString(result.stdout), result.stderr)
        XCTAssertNotEqual(changed, before["endpoint"] as? String)
        XCTAssertTrue(waitUntil(30) {
            (try? self.harness!.pushRegistrations()["org.example.A"]?["endpoint"] as? String) == changed
        })
        XCTAssertTrue(waitUntil(30) { distributor.signals("EndpointChanged").count == 2 })
        XCTAssertTrue(distributor.signals("EndpointChanged").last?.last?.contains(changed) == true)
    }

    func testLegacyConnector1_endpointAndMessage() throws {
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z")
        let legacy = try start("legacy", ["--connector", "1"])
        let registration = try harness!.registerForPushes("org.example.A")
        XCTAssertEqual(registration["endpoint"] as? String, legacy.events("NewEndpoint").last?["endpoint"] as? String)
        _ = try legacy.send(localPush(id: "v1", at: "2026-03-01T10:05:00Z"), to: registration, id: "m1")
        XCTAssertTrue(waitUntil(30) { ((try? self.harness!.list(app: "org.example.A")) ?? []).count == 1 }, "Connector1 has no reply: poll")
        XCTAssertEqual(try harness!.list(app: "org.example.A").map { $0["id"] as? String }, ["v1"])
    }

    /// A distributor's Message starts schedd through the bus's activation file when it is not running.
    func testMessage_activatesSchedd_whenItIsNotRunning() throws {
        let services = try TemporaryDirectory()
        defer { services.remove() }
        let config = services.file("bus.conf")
        let base = try String(contentsOfFile: Build.busConfig, encoding: .utf8)
        try base.replacingOccurrences(of: "<auth>EXTERNAL</auth>",
                                      with: "<auth>EXTERNAL</auth>\n  <servicedir>\(services.path)</servicedir>")
            .write(toFile: config, atomically: true, encoding: .utf8)
        harness = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z", busConfig: config)
        let h = harness!
        let distributor = try start("test")
        let registration = try h.registerForPushes("org.example.A")
        h.stopDaemon()
        // The activation file as units/org.schedd.Scheduler1.service has it, pointing at this build.
        try """
            [D-BUS Service]
            Name=org.schedd.Scheduler1
            Exec=\(Build.schedd) run --bus \(h.bus.address) --db \(h.databasePath) --notifier none --tz UTC --fake-clock 2026-03-01T10:00:00Z
            """.write(toFile: services.file("org.schedd.Scheduler1.service"), atomically: true, encoding: .utf8)
        let answer = try distributor.send(localPush(id: "woken", at: "2026-03-01T10:05:00Z"), to: registration, id: "m1")
        XCTAssertEqual((answer["reply"] as? [String: Any])?["id"] as? String, "m1", "\(answer)")
        let owner = try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "call", "org.freedesktop.DBus",
                                                       "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                       "GetConnectionUnixProcessID", "s", "org.schedd.Scheduler1"])
        activated = pid_t(owner.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        XCTAssertNotNil(activated, owner.stdout + owner.stderr)
        XCTAssertEqual(try h.list(app: "org.example.A").map { $0["id"] as? String }, ["woken"])
    }
}
