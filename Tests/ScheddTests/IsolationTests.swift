import Foundation
import Glibc
import TestPrerequisites
import XCTest

/// CONTRACT §8 "Nothing of another app", tried as a hostile app would, with the real daemon on a
/// private dbus-daemon (stock limits), the test distributor, and callers in a fake Flatpak sandbox
/// (unshare -m + chroot with a /.flatpak-info). Each attempt is caused for real; each test also
/// shows the legitimate path working, so a silent spy is not a broken spy.
final class IsolationTests: XCTestCase {
    static let start = "2026-03-01T10:00:00Z"
    static let victim = "org.example.Victim"
    static let spy = "org.example.Spy"
    var harness: ScheddHarness!
    var distributor: TestDistributor!
    var children: [ChildProcess] = []
    var sandboxes: [FlatpakSandbox] = []

    override func setUpWithError() throws {
        harness = try ScheddHarness(fakeClock: Self.start)
        distributor = try TestDistributor(address: harness.bus.address, directory: harness.directory)
    }

    override func tearDown() {
        for child in children where child.isRunning { child.terminate() }
        for sandbox in sandboxes { sandbox.remove() }
        distributor?.stop()
        harness?.tearDown()
    }

    /// Tests/Support/isolation/listener.py, unsandboxed or (with `flatpak`) as that sandboxed app.
    func listener(flatpak: String? = nil, arguments: [String]) throws -> JSONLog {
        let log = JSONLog(harness.directory.file("listener-\(UUID().uuidString.prefix(8)).jsonl"))
        let script = Build.supportFile("isolation/listener.py")
        let args = [script, "--address", harness.bus.address, "--log", log.path] + arguments
        if let flatpak {
            let sandbox = try FlatpakSandbox(flatpak)
            sandboxes.append(sandbox)
            let (command, commandArgs) = sandbox.command(DesktopHarness.python, args)
            children.append(try ChildProcess(command, commandArgs, quiet: false))
        } else {
            children.append(try ChildProcess(DesktopHarness.python, args, quiet: false))
        }
        XCTAssertTrue(waitUntil(30) { !log.events("ready").isEmpty }, "the listener did not start: \(log.text)")
        return log
    }

    /// A sandboxed app reads `List` and listens to every signal it may match while another app's
    /// notification is shown and cancelled and that app's push endpoint changes: it gets its own
    /// (empty) registrations, cannot subscribe to every app, and receives nothing of the other app —
    /// while the other app's own listener receives all of it, without keys in EndpointChanged.
    func testSandboxedApp_readsNoOtherKeys_andHearsNothingOfAnotherApp() throws {
        let registration = try harness.registerForPushes(Self.victim)
        let victimKey = try XCTUnwrap(registration["p256dh"] as? String)
        let victimLog = try listener(arguments: ["--declare", Self.victim])
        let spyLog = try listener(flatpak: Self.spy, arguments: ["--try-all-apps"])

        XCTAssertEqual(spyLog.events("list").first?["answer"] as? String, "[]", "the spy's own registrations: none")
        let subscribed = try XCTUnwrap(parseObject(spyLog.events("subscribe").first?["answer"] as? String ?? ""), spyLog.text)
        XCTAssertEqual(subscribed["app"] as? String, Self.spy)
        XCTAssertEqual(subscribed["sandboxed"] as? Bool, true)
        XCTAssertEqual(spyLog.events("subscribe-all").first?["ok"] as? Bool, false)
        XCTAssertTrue((spyLog.events("subscribe-all").first?["error"] as? String ?? "").hasPrefix("org.freedesktop.DBus.Error.AccessDenied"),
                      spyLog.text)
        XCTAssertTrue((victimLog.events("list").first?["answer"] as? String ?? "").contains(victimKey),
                      "an unsandboxed caller of the same uid reads the keys: \(victimLog.text)")

        // The victim's notification is shown and one is cancelled; its endpoint changes.
        let pushed = try harness.cli(["push", "-", "--app", Self.victim],
                                     stdin: localPush(id: "secret:1", at: "2026-03-01T10:01:00Z", title: "Victim secret title"))
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        _ = try harness.cli(["push", "-", "--app", Self.victim], stdin: localPush(id: "secret:2", at: "2026-03-01T11:00:00Z"))
        XCTAssertEqual(try harness.cli(["cancel", "secret:2", "--app", Self.victim]).status, 0)
        try harness.advance("2min")
        let changed = try runProcess("/usr/bin/busctl", ["--address=\(harness.bus.address)", "--json=short", "--", "call",
                                                         "org.unifiedpush.Distributor.test", "/org/schedd/test/Distributor",
                                                         "org.schedd.test.DistributorControl", "ChangeEndpoint", "s",
                                                         registration["endpoint"] as? String ?? ""])
        let newEndpoint = try XCTUnwrap(busctlString(changed.stdout), changed.stderr)
        // The spy's own notification, to show its subscription works.
        let own = try runAsFlatpak(Self.spy, Build.schedd, ["push", "-", "--bus", harness.bus.address],
                                   stdin: localPush(id: "mine", at: "2026-03-01T10:03:00Z", title: "Spy's own"))
        XCTAssertEqual(own.status, 0, own.stderr)
        try harness.advance("2min")

        func received(_ log: JSONLog, _ member: String) -> [[String]] {
            log.events("signal").filter { $0["member"] as? String == member }.compactMap { $0["args"] as? [String] }
        }
        XCTAssertTrue(waitUntil(30) { received(victimLog, "EndpointChanged").contains { $0.first == Self.victim } },
                      victimLog.text)
        XCTAssertTrue(waitUntil(30) { received(spyLog, "NotificationShown").contains { $0.first == "mine" } }, spyLog.text)
        XCTAssertTrue(received(victimLog, "NotificationShown").contains { $0.first == "secret:1" }, victimLog.text)
        XCTAssertTrue(received(victimLog, "NotificationCancelled").contains { $0.first == "secret:2" }, victimLog.text)
        let endpointSignal = try XCTUnwrap(received(victimLog, "EndpointChanged").first { $0.first == Self.victim })
        let carried = try XCTUnwrap(parseObject(endpointSignal[1]))
        XCTAssertEqual(carried["endpoint"] as? String, newEndpoint)
        XCTAssertNil(carried["p256dh"], "EndpointChanged carries no keys")
        XCTAssertNil(carried["auth"], "EndpointChanged carries no keys")
        XCTAssertFalse(victimLog.text.contains("Spy's own"), "the victim hears nothing of the spy either")

        // Nothing of the victim reached the spy: no signal naming it, not its title, id, endpoint or key.
        for needle in [Self.victim, "Victim secret title", "secret:1", "secret:2", newEndpoint, victimKey] {
            XCTAssertFalse(spyLog.text.contains(needle), "the sandboxed spy received \(needle): \(spyLog.text)")
        }
        XCTAssertTrue(received(spyLog, "NotificationShown").allSatisfy { $0.last == Self.spy })
    }

    /// A bus peer that learned another app's token and keys sends Connector2.Message with a body
    /// encrypted correctly for them: refused before decryption, nothing stored; the same body from the
    /// registration's distributor is accepted (so the body was valid).
    func testMessageFromAPeerThatIsNotTheDistributor_isRefused_andTheDistributorsIsAccepted() throws {
        let registration = try harness.registerForPushes(Self.victim)
        let token = try XCTUnwrap(distributor.registeredTokens().first)
        let push = localPush(id: "forged", at: "2026-03-01T10:05:00Z", title: "Forged")
        let forged = try runProcess(DesktopHarness.python, [Build.supportFile("isolation/forge_message.py"), harness.bus.address,
                                                            token, registration["p256dh"] as? String ?? "",
                                                            registration["auth"] as? String ?? "", push, "f1"])
        let answer = try XCTUnwrap(parseObject(forged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), forged.stderr)
        XCTAssertNil(answer["reply"], "\(answer)")
        XCTAssertTrue((answer["error"] as? String ?? "").hasPrefix("org.freedesktop.DBus.Error.AccessDenied"), "\(answer)")
        XCTAssertEqual(try harness.list(app: Self.victim).count, 0, "nothing of the forged push was stored")
        XCTAssertEqual(try harness.pushRegistrations()[Self.victim]?["rejected"] as? Int, 0, "not even tried: no rejection counted")
        XCTAssertTrue(harness.daemonStderr.contains("refused a push for \(Self.victim) from \(answer["sender"] as? String ?? "?")"),
                      harness.daemonStderr)

        let genuine = try distributor.send(push, to: registration, id: "g1")
        XCTAssertNil(genuine["error"] as? String, "\(genuine)")
        XCTAssertEqual(try harness.list(app: Self.victim).map { $0["id"] as? String }, ["forged"], "the same body, from the distributor")
    }

    /// A sandboxed process connects and hands its connection to a child, then exits before any call;
    /// its PID is given to an unsandboxed process (ns_last_pid, as root); then the child calls
    /// ListAllAppsPage (unsandboxed callers only). Deciding from the PID alone would take it for the
    /// unsandboxed process. Refused: that process started after the connection appeared on the bus.
    func testConnectionWhosePIDWasReusedByAnUnsandboxedProcess_isRefused() throws {
        try requirePrerequisite(geteuid() == 0, "needs root: writes /proc/sys/kernel/ns_last_pid")
        let state = harness.directory.file("pid-reuse.jsonl"), go = harness.directory.file("go")
        let sandbox = try FlatpakSandbox(Self.spy)
        sandboxes.append(sandbox)
        let (command, args) = sandbox.command(DesktopHarness.python,
                                              [Build.supportFile("isolation/pid_reuse.py"), harness.bus.address, state, go])
        let original = try ChildProcess(command, args, quiet: false)
        XCTAssertEqual(original.wait(), 0, "A exits (and is reaped here, so its PID is free)")
        let stateLog = JSONLog(state)
        let first = try XCTUnwrap(stateLog.records().first, stateLog.text)
        let pid = try XCTUnwrap(first["pid"] as? Int)
        XCTAssertEqual(pid, Int(original.pid), "the bus saw A: the unshare → chroot → python exec chain keeps one pid")

        let taken = try runProcess(DesktopHarness.python, [Build.supportFile("isolation/take_pid.py"), "\(pid)", "60"])
        let impostor = try XCTUnwrap(Int32(taken.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), taken.stderr)
        defer { kill(impostor, SIGKILL) }
        XCTAssertEqual(Int(impostor), pid, "an unsandboxed process now holds A's PID (other processes may race for it)")
        XCTAssertNotNil(ProcessInfoReader.root(of: impostor).map { $0 == "/" }, "the impostor is unsandboxed")

        _ = FileManager.default.createFile(atPath: go, contents: nil)
        XCTAssertTrue(waitUntil(60) { stateLog.records().count >= 2 }, stateLog.text)
        let results = try XCTUnwrap(stateLog.records().last?["results"] as? [[String: Any]], stateLog.text)
        XCTAssertEqual(results.count, 2)
        for result in results {
            XCTAssertEqual(result["ok"] as? Bool, false, "\(result)")
            XCTAssertTrue((result["error"] as? String ?? "").hasPrefix("org.freedesktop.DBus.Error.AccessDenied"), "\(result)")
        }
        XCTAssertTrue((results.first?["error"] as? String ?? "").contains("started after the caller's connection appeared"),
                      "\(results)")
    }

    /// A sandboxed caller that sends a Push and exits at once, without waiting for the answer: the
    /// push is applied as the sandboxed app (pinned in time) or refused — never in another namespace.
    func testCallerThatExitsRightAfterSending_isPinnedOrRefused_neverAnotherApp() throws {
        let script = """
        import sys
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        c = open_dbus_connection(bus=sys.argv[1])
        a = DBusAddress("/org/schedd/Scheduler1", bus_name="org.schedd.Scheduler1", interface="org.schedd.Scheduler1")
        c.send(new_method_call(a, "Push", "s", (sys.argv[2],)))
        """
        for i in 0..<5 {
            let r = try runAsFlatpak(Self.spy, DesktopHarness.python,
                                     ["-c", script, harness.bus.address, localPush(id: "gone:\(i)", at: "2026-03-01T11:00:00Z")])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        // Each call was answered or refused by now or never will be: the daemon answers in order, so
        // a ClockShow answered after them means they were handled.
        XCTAssertEqual(try harness.cli(["clock", "show"]).status, 0)
        let all = try harness.list(allApps: true)
        XCTAssertTrue(all.allSatisfy { $0["app"] as? String == Self.spy }, "only the spy's namespace: \(all)")
        XCTAssertEqual(try harness.list().count, 0, "nothing in the default app")
    }
}

/// One JSON object per line, appended by a helper process.
struct JSONLog {
    let path: String
    init(_ path: String) { self.path = path }
    var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    func records() -> [[String: Any]] { text.split(separator: "\n").compactMap { parseObject(String($0)) } }
    func events(_ name: String) -> [[String: Any]] { records().filter { $0["event"] as? String == name } }
}

enum ProcessInfoReader {
    /// Where /proc/PID/root points (nil when unreadable).
    static func root(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/root")
    }
}
