import Foundation
import SchedCalendar
import Scheduler
import ScheddApps
import ScheddDesktop
import XCTest
import TestPrerequisites

/// Paths of the test harness (Tests/Support/notify).
enum DesktopHarness {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let notifyDir = repoRoot.appendingPathComponent("Tests/Support/notify")
    static let python = "/usr/bin/python3"

    /// Runs `executable args…` to completion and returns (status, stdout).
    @discardableResult
    static func run(_ executable: String, _ args: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, output: String) {
        let outPath = NSTemporaryDirectory() + "schedd-run-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let child = try ChildProcess(executable, args, environment: environment, stdoutPath: outPath)
        let status = child.wait()
        return (status, (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "")
    }

    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(tool)") {
            return "\(dir)/\(tool)"
        }
        return nil
    }
}

/// A harness step that could not be set up (a test failure, not a skip).
struct DesktopHarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A child started with posix_spawn and reaped with waitpid. (Foundation's Process on Linux missed the
/// exit of a child whose own child daemonized, hanging `waitUntilExit`; this has no such machinery.)
final class ChildProcess {
    let pid: pid_t
    private var status: Int32?

    /// Starts `executable` with `args`; stdout to `stdoutPath` (else inherited), stderr to /dev/null
    /// when `quiet`, stdin from /dev/null.
    init(_ executable: String, _ args: [String], environment: [String: String]? = nil, stdoutPath: String? = nil,
         quiet: Bool = true) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdoutPath { posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv = ([executable] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, executable, &actions, nil, argv, env)
        guard r == 0 else { throw missingReference("cannot start \(executable): errno \(r)") }
        self.pid = pid
    }

    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { status = raw; return false }
        return true
    }

    /// Waits for the exit; returns the exit status (128+signal when killed).
    @discardableResult
    func wait() -> Int32 {
        if status == nil {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
        let raw = status ?? 0
        return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    func terminate() {
        if isRunning { kill(pid, SIGTERM) }
        wait()
    }
}

/// A private dbus-daemon with Tests/Support/notify/bus.conf (only its own service directory): a
/// `TestBus`, tethered to the test process like every test bus.
final class PrivateBus {
    private let bus: TestBus
    var address: String { bus.address }
    var pid: Int32 { bus.pid }

    /// A new bus; at `address` (e.g. `unix:path=/tmp/x/bus`) when given, so it can be restarted there.
    init(address: String? = nil) throws {
        do {
            bus = try TestBus(config: DesktopHarness.notifyDir.appendingPathComponent("bus.conf").path, address: address)
        } catch {
            throw missingReference("cannot start dbus-daemon: \(error)")
        }
    }

    func stop() { bus.stop() }
}

/// Tests/Support/notify/recording_server.py on a private bus; its call log parsed on demand.
final class RecordingServer {
    let logPath: String
    private let process: ChildProcess

    init(bus: PrivateBus, caps: [String] = ["body", "body-markup", "actions"], hang: Bool = false) throws {
        logPath = NSTemporaryDirectory() + "schedd-notify-\(UUID().uuidString).jsonl"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try ChildProcess(DesktopHarness.python,
            [DesktopHarness.notifyDir.appendingPathComponent("recording_server.py").path,
             "--address", bus.address, "--log", logPath, "--caps", caps.joined(separator: ",")] + (hang ? ["--hang"] : []),
            quiet: false)
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(10) * 1000))
        while ContinuousClock.now < deadline, !records().contains(where: { $0["event"] as? String == "ready" }) {
            usleep(10_000)
        }
        guard records().contains(where: { $0["event"] as? String == "ready" }) else {
            stop()
            throw missingReference("recording server did not start (python3-dbus missing?)")
        }
    }

    /// Every line of the log, parsed.
    func records() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The recorded calls of `method`, oldest first.
    func calls(_ method: String) -> [[String: Any]] { records().filter { $0["method"] as? String == method } }

    /// The `args` of the recorded Notify calls.
    func notifyArgs() -> [[String: Any]] { calls("Notify").compactMap { $0["args"] as? [String: Any] } }

    func emitActionInvoked(bus: PrivateBus, id: UInt32, key: String) throws {
        try control(bus: bus, ["EmitActionInvoked", "us", "\(id)", key])
    }

    func emitNotificationClosed(bus: PrivateBus, id: UInt32, reason: UInt32) throws {
        try control(bus: bus, ["EmitNotificationClosed", "uu", "\(id)", "\(reason)"])
    }

    private func control(bus: PrivateBus, _ args: [String]) throws {
        let (status, _) = try DesktopHarness.run("/usr/bin/busctl",
            ["--address=\(bus.address)", "call", "org.freedesktop.Notifications", "/org/schedd/test/Control",
             "org.schedd.test.NotifyControl"] + args)
        XCTAssertEqual(status, 0, "busctl control call \(args) failed")
    }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

/// A due notification with test defaults.
func dueNotification(id: String, title: String = "Stand up", body: String? = "Time to move",
                     urgency: Urgency = .normal, icon: String? = nil, category: String? = nil,
                     actions: [NotificationAction] = []) -> DueNotification {
    let due = Instant(seconds: 1_780_000_000)  // 2026-05-28T20:26:40Z
    return DueNotification(app: Engine.defaultApp, id: id, runId: runId(of: id), title: title, body: body, urgency: urgency, icon: icon,
                           category: category, actions: actions, dataJSON: nil, messageId: nil, due: due, at: due,
                           lateSeconds: 0)
}

/// Records what the notifier reports in its outcome stream.
final class InteractionLog {
    struct Entry: Equatable { var id: String; var event: HistoryRecord.Event; var reason: String? }
    var entries: [Entry] = []
    /// What opening ran, per entry (nil for dismissals).
    var ran: [String?] = []
    var interactions: [DesktopNotifier.Interaction] = []
    var snoozes: [(DueNotification, Int64)] = []
    var serverAppeared = 0

    func attach(to notifier: DesktopNotifier) {
        notifier.outcomes.subscribe { [unowned self] outcome in
            switch outcome {
            case .interaction(let i):
                entries.append(Entry(id: i.id, event: i.event, reason: i.reason))
                ran.append(i.ran)
                interactions.append(i)
            case .snooze(let n, let seconds): snoozes.append((n, seconds))
            case .serverAppeared: serverAppeared += 1
            default: break
            }
        }
    }
}

extension DesktopOutcomes {
    /// Hands each `.problem` line to `record`.
    func subscribeProblems(_ record: @escaping (String) -> Void) {
        subscribe { if case .problem(let line) = $0 { record(line) } }
    }
}

/// Dispatches the notifier's bus until `condition` holds or `seconds` pass; returns the condition.
@discardableResult
func pump(_ notifier: DesktopNotifier, upTo seconds: Double = 5, until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(Double(seconds) * 1000))
    while !condition() && ContinuousClock.now < deadline { notifier.process(waitingUpTo: 0.02) }
    return condition()
}

/// Desktop files in a temporary XDG data dir (`DIR/share/applications`), as an `AppDirectory` and as
/// environment for a daemon.
final class TemporaryDesktopFiles {
    let directory: String
    var dataDir: String { directory + "/share" }

    init() throws {
        directory = NSTemporaryDirectory() + "schedd-apps-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/share/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
    }

    func add(_ appID: String, _ text: String) throws {
        try text.write(toFile: "\(dataDir)/applications/\(appID).desktop", atomically: true, encoding: .utf8)
    }

    /// XDG_DATA_HOME, XDG_DATA_DIRS and HOME pointing here only.
    var environment: [String: String] {
        ["XDG_DATA_DIRS": dataDir, "XDG_DATA_HOME": directory + "/home/.local/share", "HOME": directory + "/home"]
    }

    var appDirectory: AppDirectory {
        let env = environment
        return AppDirectory(locator: DesktopEntryLocator(environment: { env[$0] }))
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Waits (up to `seconds`) until the X screen `display` holds still: two screenshots in a row (ImageMagick
/// `import`) with the same pixels (`convert -format %#`, a hash of the pixels alone, not of the PNG's
/// time stamps). Then a drawing and its animations (a fade-in) are finished and a screenshot shows
/// the notification as it stays. False when it kept changing, or `import` failed.
///
/// `ignoringTop` rows at the top of the screen are left out of the comparison: GNOME Shell's top bar
/// draws the wall-clock time there, which changes on its own (a minute passing; this VM's wall clock is
/// stepped by its time sync) and once kept a still banner from ever counting as still for 10 s in CI
/// (GnomeShellTests.testCancel…, 2026-12-07). Banners are drawn below the bar.
func waitForStillScreen(_ display: String, scratch: String, seconds: Double = 10, ignoringTop: Int = 0) -> Bool {
    func pixels() -> String? {
        let region = ignoringTop > 0 ? ["-crop", "+0+\(ignoringTop)", "+repage"] : []
        guard let shot = try? DesktopHarness.run("/usr/bin/import", ["-display", display, "-window", "root", scratch]),
              shot.0 == 0, let hash = try? runProcess("/usr/bin/convert", [scratch] + region + ["-format", "%#", "info:"]),
              hash.status == 0 else { return nil }
        return hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    var previous = pixels()
    return waitUntil(seconds) {
        let now = pixels()
        defer { previous = now }
        return now != nil && now == previous
    }
}

/// Seconds on the monotonic clock since `start`: a step of the wall clock does not change it.
func secondsSince(_ start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Polls `condition` every 20 ms for up to `seconds` of the monotonic clock (a step of the wall clock, by a
/// test or the VM's time sync, neither shortens nor stretches the wait: CI once saw a 10 s wait for a
/// still GNOME screen give up after less than 4 s); a throwing condition ends the wait by throwing.
func waitUntil(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while try !condition() && ContinuousClock.now < deadline { usleep(20_000) }
    return try condition()
}

/// Shows `note` and dispatches the notifier's bus until it reports the outcome: `.shown` once the server
/// answered Notify, `.failed(reason:)` when it could not (at once, or after the call failed or timed
/// out); `.pending` only when nothing came within `seconds`.
func showAndWait(_ notifier: DesktopNotifier, _ note: DueNotification, upTo seconds: Double = 5) -> DeliveryResult {
    var outcome: DeliveryResult?
    let subscription = notifier.outcomes.subscribe { reported in
        switch reported {
        case .delivered(let n) where n == note: outcome = .shown
        case .deliveryFailed(let n, let reason) where n == note: outcome = .failed(reason: reason)
        default: break
        }
    }
    defer { notifier.outcomes.cancel(subscription) }
    let first = notifier.show(note)
    guard first == .pending else { return first }
    pump(notifier, upTo: seconds) { outcome != nil }
    return outcome ?? .pending
}
