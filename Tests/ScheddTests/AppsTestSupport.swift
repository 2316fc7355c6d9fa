import Foundation
import Glibc
import XCTest

/// An app's notifications end to end on real parts: apps' desktop files in a temporary XDG data dir,
/// the real daemon (fake clock) with the desktop notifier on its private bus and those files in its
/// environment, and the recording notification server on that bus. The one setup of AppsEnvelopeTests,
/// AppsExampleTests, AppsEndToEndTests and IsolationLaunchTests; `tearDown()` stops all of it.
final class DesktopDaemon {
    let apps: TemporaryDesktopFiles
    let harness: ScheddHarness
    let server: PythonService

    /// `desktopFiles` adds the apps' files (it gets the directory first, e.g. for a log path in it).
    init(fakeClock: String, desktopFiles: (TemporaryDesktopFiles) throws -> Void) throws {
        let apps = try TemporaryDesktopFiles()
        var harness: ScheddHarness?
        do {
            try desktopFiles(apps)
            var env = apps.environment
            env["DBUS_SESSION_BUS_ADDRESS"] = "$BUS"
            harness = try ScheddHarness(fakeClock: fakeClock, daemonEnvironment: env,
                                        notifierArguments: ["--notifier", "desktop", "--notify-bus", "$BUS"])
            server = try PythonService.notificationServer(address: harness!.bus.address)
        } catch {
            harness?.tearDown()
            apps.remove()
            throw error
        }
        self.apps = apps
        self.harness = harness!
    }

    /// With one app's desktop file.
    convenience init(fakeClock: String, app: String, desktopFile: String) throws {
        try self.init(fakeClock: fakeClock) { try $0.add(app, desktopFile) }
    }

    func tearDown() {
        server.stop()
        harness.tearDown()
        apps.remove()
    }
}

/// A Python test service (the recording notification server, the fake app) on a bus, with its JSONL log.
final class PythonService {
    let logPath: String
    private let process: ChildProcess

    init(script: String, address: String, arguments: [String]) throws {
        logPath = NSTemporaryDirectory() + "schedd-svc-\(UUID().uuidString).jsonl"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try ChildProcess(DesktopHarness.python, [script, "--address", address, "--log", logPath] + arguments,
                                   quiet: false)
        guard waitUntil(10, { self.records().contains { $0["event"] as? String == "ready" } }) else {
            stop()
            throw DesktopHarnessError(message: "\(script) did not start on \(address)")
        }
    }

    /// The recording notification server.
    static func notificationServer(address: String) throws -> PythonService {
        try PythonService(script: DesktopHarness.notifyDir.appendingPathComponent("recording_server.py").path,
                          address: address, arguments: ["--caps", "body,body-markup,actions"])
    }

    /// The fake app owning `appID` with org.freedesktop.Application.
    static func fakeApp(_ appID: String, address: String, fail: Bool = false) throws -> PythonService {
        try PythonService(script: DesktopHarness.repoRoot.appendingPathComponent("Tests/Support/apps/fake_app.py").path,
                          address: address, arguments: ["--app-id", appID] + (fail ? ["--fail"] : []))
    }

    func records() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func calls(_ method: String) -> [[String: Any]] { records().filter { $0["method"] as? String == method } }

    /// The log as text (for messages and notes).
    var logText: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

/// Calls the recording server's control interface on `address` (busctl).
func notifyControl(_ address: String, _ args: [String]) throws {
    let r = try runProcess("/usr/bin/busctl", ["--address=\(address)", "call", "org.freedesktop.Notifications",
                                               "/org/schedd/test/Control", "org.schedd.test.NotifyControl"] + args)
    XCTAssertEqual(r.status, 0, "busctl \(args): \(r.stderr)")
}

/// Runs a command as a fake Flatpak app, the way bwrap builds a sandbox: in a new mount namespace
/// (`unshare -m --propagation private`), a private root on a tmpfs holding bind mounts of the real
/// top-level directories and a `/.flatpak-info` naming `appID`, then `chroot` into it. Nothing is
/// created in the real root; the daemon reads the caller's file through /proc/PID/root/.flatpak-info.
func runAsFlatpak(_ appID: String, _ executable: String, _ arguments: [String], stdin: String? = nil,
                  environment: [String: String] = [:]) throws -> CommandResult {
    let sandbox = try FlatpakSandbox(appID)
    defer { sandbox.remove() }
    let (command, args) = sandbox.command(executable, arguments)
    return try runProcess(command, args, stdin: stdin, environment: environment)
}

/// The empty directory a fake Flatpak sandbox mounts its root on (see `runAsFlatpak`), and the
/// command line that runs a program in it. The mounts live in the sandbox's own mount namespace and
/// vanish with its last process; `remove()` deletes the directory afterwards.
struct FlatpakSandbox {
    let appID: String
    let root: String

    init(_ appID: String) throws {
        self.appID = appID
        root = NSTemporaryDirectory() + "schedd-flatpak-root-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// `unshare -m … chroot ROOT executable arguments…`: the process that ends up running `executable`
    /// keeps the pid of the `unshare` started here (each step execs the next).
    func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        let script = """
        set -e
        R="$1"; APP="$2"; shift 2
        mount -t tmpfs tmpfs "$R"
        for p in /*; do
            d="${p#/}"
            if [ -L "$p" ]; then ln -s "$(readlink "$p")" "$R/$d"
            elif [ -d "$p" ]; then mkdir -p "$R/$d"; mount --rbind "$p" "$R/$d"; fi
        done
        printf '[Application]\\nname=%s\\n\\n[Instance]\\ninstance-id=4242\\n' "$APP" > "$R/.flatpak-info"
        exec chroot "$R" "$@"
        """
        return ("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", root, appID,
                                     executable] + arguments)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// Runs a command inside a real cgroup named like a desktop launcher's app scope (the shell moves
/// itself there, then execs the command), so the daemon finds the unit in /proc/PID/cgroup.
func runInAppScope(_ unit: String, _ executable: String, _ arguments: [String], stdin: String? = nil,
                   environment: [String: String] = [:]) throws -> CommandResult {
    let hierarchy = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs")
        ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"
    let base = "\(hierarchy)/schedd-apps-test-\(getpid()).slice"
    let scope = "\(base)/user@0.service/app.slice/\(unit)"
    try FileManager.default.createDirectory(atPath: scope, withIntermediateDirectories: true)
    defer {
        var path = scope
        while path.count >= base.count { rmdir(path); path = String(path[..<path.lastIndex(of: "/")!]) }
    }
    // The exec'd command keeps the shell's pid, hence its cgroup; it has exited when this returns.
    return try runProcess("/bin/sh", ["-c", "echo $$ > \"$1/cgroup.procs\"; shift; exec \"$@\"", "sh", scope, executable]
                          + arguments, stdin: stdin, environment: environment)
}
