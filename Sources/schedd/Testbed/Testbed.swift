import ScheddSystem

/// One running testbed: a private dbus-daemon and a fake-clock `schedd run` on it, both in a
/// temporary directory of their own (`$TMPDIR/schedd-testbed-XXXXXX`):
///
/// | file | what |
/// |---|---|
/// | `bus.conf`, `bus` | the bus's configuration (`testbedBusConfiguration`) and its socket |
/// | `schedd.db` | the daemon's database |
/// | `shown.ndjson` | the notifier's lines (`--notifier recording`); `$SCHEDD_TESTBED` |
/// | `daemon.log`, `bus.log` | their stderr |
///
/// Nothing outside that directory is read or written by the daemon: it gets `--db`, `--bus` and
/// `--tz`, and its environment keeps nothing of a service manager's (`NOTIFY_SOCKET` is the
/// testbed's own). Start costs one bus start and one daemon start (each a few milliseconds here).
final class Testbed {
    let options: TestbedOptions
    let directory: String
    private(set) var bus: ChildProcess?
    private(set) var daemon: ChildProcess?
    private(set) var address = ""

    var shownPath: String { directory + "/shown.ndjson" }
    var daemonLogPath: String { directory + "/daemon.log" }

    /// Creates the directory; starts nothing yet.
    init(options: TestbedOptions) throws(CommandFailure) {
        self.options = options
        let base = environment("TMPDIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        do { directory = try FileSystem.makeTemporaryDirectory(base + "/schedd-testbed-XXXXXX") } catch {
            throw .failure("testbed: cannot create a directory in \(base): \(error)")
        }
    }

    /// The variables COMMAND gets on top of the testbed's own environment.
    var variables: [(String, String)] {
        [("DBUS_SESSION_BUS_ADDRESS", address), ("SCHEDD_TESTBED", shownPath)]
    }

    /// Starts the bus, then the daemon, and waits for its READY=1. A terminating signal that
    /// arrives meanwhile is returned (the caller tears down); nil when both are ready.
    func start() throws(CommandFailure) -> TestbedSignals.Received? {
        let deadline = monotonicMilliseconds() + TestbedOptions.startDeadlineMilliseconds
        try write(testbedBusConfiguration(socketPath: directory + "/bus"), to: directory + "/bus.conf")
        try startBus(deadline: deadline)
        let socket = try ReadinessSocket(path: directory + "/notify")
        let daemon = try ChildProcess(
            name: "the daemon",
            [executablePath(), "run", "--bus", address, "--db", directory + "/schedd.db",
             "--notifier", options.notifier == .none ? "none" : "stdout",
             "--fake-clock", options.fakeClock, "--tz", options.zone],
            environment: childEnvironment(adding: [("NOTIFY_SOCKET", socket.path)]),
            stdout: options.notifier == .stdout ? .inherit : .append(shownPath),
            stderr: .append(daemonLogPath), ownGroup: true)
        self.daemon = daemon
        if options.notifier != .recording { try write("", to: shownPath) }
        while !socket.readyArrived(within: 20) {
            if let signal = TestbedSignals.next(milliseconds: 0), signal.number != SignalNumber.childStatus { return signal }
            if daemon.poll() {
                throw .failure("testbed: the daemon \(daemon.statusText) before it was ready: \(tail(of: daemonLogPath))")
            }
            if monotonicMilliseconds() > deadline {
                throw .failure("testbed: the daemon sent no READY=1 within 30 s: \(tail(of: daemonLogPath))")
            }
        }
        return nil
    }

    /// Starts dbus-daemon in the foreground (`--nofork`, so it stays our child) and reads the
    /// address it prints on a pipe.
    private func startBus(deadline: Int64) throws(CommandFailure) {
        let ends: (read: FileDescriptor, write: FileDescriptor)
        do { ends = try FileDescriptor.pipe() } catch { throw .failure("testbed: pipe: \(error)") }
        defer { ends.read.close() }
        let bus: ChildProcess
        do {
            bus = try ChildProcess(
                name: "dbus-daemon",
                [findDBusDaemon(), "--config-file=" + directory + "/bus.conf", "--nofork", "--nopidfile",
                 "--print-address=3"],
                environment: childEnvironment(adding: []), stdout: .null, stderr: .append(directory + "/bus.log"),
                extra: [(3, ends.write.rawValue)], ownGroup: true)
        } catch {
            ends.write.close()
            throw error
        }
        ends.write.close()
        self.bus = bus
        var text: [UInt8] = []
        while !text.contains(UInt8(ascii: "\n")) {
            if (try? ends.read.waitReadable(milliseconds: 50)) == true, let bytes = try? ends.read.read(upTo: 512) {
                if bytes.isEmpty { break }
                text += bytes
            }
            if bus.poll() || monotonicMilliseconds() > deadline { break }
        }
        guard let line = text.split(separator: UInt8(ascii: "\n")).first, !line.isEmpty else {
            throw .failure("testbed: dbus-daemon \(bus.poll() ? bus.statusText : "printed no address"): "
                           + tail(of: directory + "/bus.log"))
        }
        address = String(decoding: line, as: UTF8.self)
    }

    /// Stops the daemon, then the bus (each SIGTERM, then SIGKILL after the grace), and removes the
    /// directory unless `--keep`. Safe to call more than once and after a failed start.
    func tearDown() {
        for (child, label) in [(daemon, "the daemon"), (bus, "dbus-daemon")] {
            guard let child else { continue }
            if child.stop(graceMilliseconds: TestbedOptions.stopGraceMilliseconds) {
                Console.err("schedd: testbed: \(label) (pid \(child.pid)) did not stop on SIGTERM within "
                            + "\(TestbedOptions.stopGraceMilliseconds / 1000) s; killed it")
            }
        }
        if options.keep {
            Console.err("schedd: testbed: kept \(directory) (schedd.db, shown.ndjson, daemon.log)")
        } else {
            removeTree(directory)
        }
    }

    /// The testbed's environment without what belongs to a service manager or to the testbed's own
    /// supervision, plus `extra`.
    func childEnvironment(adding extra: [(String, String)]) -> [String] {
        let dropped: Set<String> = ["NOTIFY_SOCKET", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
                                    "LISTEN_PID", "LISTEN_FDNAMES", testbedSupervisorVariable]
        let names = dropped.union(extra.map(\.0))
        let result = environmentEntries(dropping: names)
        return result + extra.map { "\($0.0)=\($0.1)" }
    }
}

/// The variable that marks the detached supervisor of `testbed --print-env` (never passed on).
let testbedSupervisorVariable = "SCHEDD_TESTBED_SUPERVISE"

/// The process's environment as `NAME=value` entries, without the variables named in `names`.
func environmentEntries(dropping names: Set<String>) -> [String] {
    CurrentProcess.environment.filter { text in
        !names.contains(text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text)
    }
}

/// This executable's path (`/proc/self/exe`), so the daemon is the same build as the testbed.
func executablePath() throws(CommandFailure) -> String {
    do { return try FileSystem.linkTarget("/proc/self/exe") } catch {
        throw .failure("testbed: cannot read /proc/self/exe: \(error)")
    }
}

/// `dbus-daemon` from PATH, else /usr/bin/dbus-daemon.
func findDBusDaemon() throws(CommandFailure) -> String {
    let directories = (environment("PATH") ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
    for directory in directories where !directory.isEmpty {
        let candidate = directory + "/dbus-daemon"
        if FileSystem.isExecutable(candidate) { return candidate }
    }
    throw .failure("testbed: dbus-daemon not found on PATH (Debian: apt-get install dbus-daemon)")
}

/// Writes `text` to a new file at `path` (0600).
func write(_ text: String, to path: String) throws(CommandFailure) {
    let fd: FileDescriptor
    do { fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o600) } catch {
        throw .failure("testbed: cannot write '\(path)': \(error)")
    }
    Console.writeAll(fd.rawValue, text)
    fd.close()
}

/// The last lines of a log file, on one line, for an error message.
func tail(of path: String, lines: Int = 5) -> String {
    guard let fd = try? FileDescriptor.open(path, .readOnly) else { return "(no log)" }
    defer { fd.close() }
    var bytes: [UInt8] = []
    while true {
        guard let chunk = try? fd.read(upTo: 4096), !chunk.isEmpty else { break }
        bytes += chunk
        if bytes.count > 65536 { bytes.removeFirst(bytes.count - 65536) }
    }
    let last = bytes.split(separator: UInt8(ascii: "\n")).suffix(lines).map { String(decoding: $0, as: UTF8.self) }
    return last.isEmpty ? "(empty log)" : last.joined(separator: " | ")
}

/// Removes a directory tree the testbed made (no symlinks are followed).
func removeTree(_ path: String) {
    guard let names = try? FileSystem.directoryEntries(path) else {
        try? FileSystem.remove(path)
        return
    }
    for name in names {
        let child = path + "/" + name
        if (try? FileSystem.linkStatus(child))?.isDirectory == true { removeTree(child) } else { try? FileSystem.remove(child) }
    }
    try? FileSystem.removeDirectory(path)
}
