import Foundation
import Glibc
import XCTest

/// One test's world: a private bus, a fresh database, the real `schedd run` on that bus (with
/// `--notifier stdout` and, usually, a fake clock) and the real CLI binary driving it.
final class ScheddHarness {
    let bus: TestBus
    let directory: TemporaryDirectory
    /// The device zone (`TZ`) of the daemon and the CLI.
    let zone: String
    private(set) var daemon: Process?
    private(set) var notify: NotifySocket?
    private var starts = 0

    /// The database file, relative to `directory` (`schedd.db` unless the test puts it elsewhere).
    let databaseName: String
    var databasePath: String { directory.file(databaseName) }

    /// Starts a bus and a daemon. `fakeClock` nil runs the real clock.
    /// Extra environment for the daemon (`TZDIR`…).
    let daemonEnvironment: [String: String]

    /// The daemon's notifier options.
    let notifierArguments: [String]

    init(fakeClock: String?, zone: String = "UTC", daemonEnvironment: [String: String] = [:],
         notifierArguments: [String] = ["--notifier", "stdout"], busConfig: String = Build.busConfig,
         databaseName: String = "schedd.db", prepare: (TemporaryDirectory) throws -> Void = { _ in }) throws {
        self.databaseName = databaseName
        bus = try TestBus(config: busConfig)
        directory = try TemporaryDirectory()
        self.zone = zone
        self.daemonEnvironment = daemonEnvironment
        self.notifierArguments = notifierArguments
        do {
            try prepare(directory)
            try startDaemon(fakeClock: fakeClock)
        } catch {
            // No tearDown will run for a harness that failed to start: leave nothing behind.
            bus.stop()
            directory.remove()
            throw error
        }
    }

    /// Starts `schedd run` and waits for READY=1 on a NOTIFY_SOCKET of the test's own.
    func startDaemon(fakeClock: String?) throws {
        starts += 1
        let stdoutPath = directory.file("stdout.\(starts)"), stderrPath = directory.file("stderr.\(starts)")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let socket = try NotifySocket(path: directory.file("notify.\(starts)"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Build.schedd)
        // "$BUS" in the notifier options and the environment stands for this harness's bus address.
        var arguments = ["run", "--bus", bus.address, "--db", databasePath]
            + notifierArguments.map { $0.replacingOccurrences(of: "$BUS", with: bus.address) }
        if let fakeClock { arguments += ["--fake-clock", fakeClock] }
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = zone
        env["NOTIFY_SOCKET"] = socket.path
        env.removeValue(forKey: "JOURNAL_STREAM")
        env.removeValue(forKey: "WATCHDOG_USEC")
        for (key, value) in daemonEnvironment {
            env[key] = value.replacingOccurrences(of: "$DIR", with: directory.path).replacingOccurrences(of: "$BUS", with: bus.address)
        }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        daemon = process
        notify = socket
        guard socket.wait(for: "READY=1", unless: { !process.isRunning }) else {
            process.terminate()
            process.waitUntilExit()
            throw TestSetupError("schedd run never sent READY=1; stderr: \(daemonStderr)")
        }
    }

    /// Everything the current daemon wrote to stderr (its log).
    var daemonStderr: String {
        (try? String(contentsOfFile: directory.file("stderr.\(starts)"), encoding: .utf8)) ?? ""
    }

    /// Every notification line the daemons printed (`--notifier stdout`), across restarts, in order.
    var shown: [[String: Any]] {
        (1...max(1, starts)).flatMap { n -> [[String: Any]] in
            let text = (try? String(contentsOfFile: directory.file("stdout.\(n)"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { parseObject(String($0)) }
        }
    }

    /// Runs the CLI against this harness's bus.
    func cli(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try runProcess(Build.schedd, arguments + ["--bus", bus.address], stdin: stdin, environment: ["TZ": zone])
    }

    /// Runs the CLI with `--json`, asserts exit 0 and returns the parsed stdout.
    func json(_ arguments: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let result = try cli(arguments + ["--json"], stdin: stdin)
        XCTAssertEqual(result.status, 0, "schedd \(arguments): \(result.stderr)", file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }

    /// Pushes one JSON push; returns the answer objects (one per line).
    func push(_ push: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let result = try cli(["push", "-", "--json"], stdin: push)
        XCTAssertEqual(result.status, 0, "push \(push): \(result.stdout) \(result.stderr)", file: file, line: line)
        return result.lines.compactMap(parseObject)
    }

    /// The pending schedules of the default app (`app`: of that app; `allApps`: of every app).
    func list(app: String? = nil, allApps: Bool = false) throws -> [[String: Any]] {
        try json(["list"] + (app.map { ["--app", $0] } ?? []) + (allApps ? ["--all-apps"] : [])) as? [[String: Any]] ?? []
    }
    /// The newest history records of the default app (`app`: of that app).
    func history(limit: Int = 100, app: String? = nil) throws -> [[String: Any]] {
        try json(["history", "--limit", "\(limit)"] + (app.map { ["--app", $0] } ?? [])) as? [[String: Any]] ?? []
    }

    /// Moves the fake clock (`clock advance SPAN`); asserts success.
    func advance(_ span: String, file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try json(["clock", "advance", span], file: file, line: line)
    }

    /// Stops the daemon with SIGTERM and waits; returns its exit status.
    @discardableResult
    func stopDaemon() -> Int32 {
        guard let daemon else { return -1 }
        daemon.terminate()
        daemon.waitUntilExit()
        self.daemon = nil
        return daemon.terminationStatus
    }

    /// Kills the daemon with SIGKILL (no chance to clean up) and waits.
    func killDaemon() {
        guard let daemon else { return }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        self.daemon = nil
    }

    func tearDown() {
        _ = stopDaemon()
        bus.stop()
        directory.remove()
    }
}

/// Parses one JSON object line.
func parseObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// A one-shot push text.
func localPush(id: String, at: String? = nil, calendar: String? = nil, title: String = "Title",
               extra: String = "") -> String {
    var members = ["\"id\":\"\(id)\"", "\"title\":\"\(title)\""]
    if let at { members.append("\"at\":\"\(at)\"") }
    if let calendar { members.append("\"calendar\":\"\(calendar)\"") }
    if !extra.isEmpty { members.append(extra) }
    return "{\"bk\":{\"local\":{\(members.joined(separator: ","))}}}"
}
