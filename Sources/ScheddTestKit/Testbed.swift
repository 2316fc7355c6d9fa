import Foundation
import ScheddClient
import ScheddSystem
import Synchronization

/// A private schedd for one test (XCTest or Swift Testing): `schedd testbed --print-env` — a
/// dbus-daemon of its own with stock limits and nothing activatable, and `schedd run` with a fake
/// clock on a temporary database; nothing of the person's own session is used.
///
/// ```swift
/// let testbed = try await Testbed.start(fakeClock: "2026-12-24T08:00:00Z", zone: "Europe/Berlin")
/// defer { testbed.stop() }
/// try await testbed.schedule(id: "run_1:dinner", title: "Dinner", at: "2026-12-24T18:00")
/// try await testbed.advance("10h")
/// XCTAssertEqual(try testbed.shown().map(\.id), ["run_1:dinner"])
/// ```
///
/// The clock moves only when the test moves it, and every clock control returns after what fell due
/// was delivered and recorded: assertions right after it see the result, with no sleeping or polling.
/// The `schedd` binary is `$SCHEDD_BINARY`, else the one beside the test bundle (`swift test` in a
/// package that builds schedd), else `schedd` on PATH.
public final class Testbed: Sendable {
    /// A client connected to the testbed's daemon (every call of the D-Bus API).
    public let client: ScheddClient
    /// The private bus (`DBUS_SESSION_BUS_ADDRESS` for processes the test starts).
    public let address: String
    /// The file of shown notifications (`SCHEDD_TESTBED`), one JSON line each.
    public let shownPath: String
    private let supervisor: Int32
    private let stopped = Mutex(false)

    private init(client: ScheddClient, address: String, shownPath: String, supervisor: Int32) {
        self.client = client; self.address = address; self.shownPath = shownPath; self.supervisor = supervisor
    }

    /// Starts a testbed. `fakeClock`: where the clock starts (RFC 3339; nil: now). `zone`: the device zone.
    /// `app`: the app id the client declares.
    public static func start(fakeClock: String? = nil, zone: String = "UTC", app: String? = nil,
                             schedd: String? = nil) async throws(ScheddError) -> Testbed {
        let binary: String
        if let schedd { binary = schedd } else { binary = try locateSchedd() }
        var arguments = ["testbed", "--print-env", "--json", "--tz", zone]
        if let fakeClock { arguments += ["--fake-clock", fakeClock] }
        let (status, output, errors) = try run(binary, arguments)
        guard status == 0 else {
            throw ScheddError(.unreachable, "schedd testbed failed (exit \(status)): \(errors)")
        }
        guard let variables = try? JSONDecoder().decode([String: String].self, from: Data(output.utf8)),
              let address = variables["DBUS_SESSION_BUS_ADDRESS"], let shown = variables["SCHEDD_TESTBED"],
              let pid = variables["SCHEDD_TESTBED_PID"].flatMap({ Int32($0) }) else {
            throw ScheddError(.protocolError, "schedd testbed printed no variables: \(output)")
        }
        do throws(ScheddError) {
            let client = try await ScheddClient.connect(to: .address(address), app: app)
            try await client.subscribe(allApps: true)  // `client.signals()` carries every app's signals
            return Testbed(client: client, address: address, shownPath: shown, supervisor: pid)
        } catch {
            stopSupervisor(pid)
            throw error
        }
    }

    deinit { stop() }

    /// Tears the testbed down (daemon, bus, temporary directory) and waits until it is gone. Idempotent.
    public func stop() {
        let first = stopped.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        client.close()
        Self.stopSupervisor(supervisor)
    }

    // MARK: What a test does

    /// Applies one push; its outcomes.
    @discardableResult
    public func push(_ push: Push) async throws(ScheddError) -> [PushOutcome] { try await client.push(push) }

    /// Pushes one one-shot notification at `at` (floating wall time, or an instant with `Z`/offset).
    @discardableResult
    public func schedule(id: String, title: String, at: String, body: String? = nil,
                         cancelOn: [String]? = nil, graceSeconds: Int? = nil) async throws(ScheddError) -> PushOutcome {
        let outcomes = try await client.push(.local(LocalNotification(id: id, title: title, trigger: .at(at), body: body,
                                                                      cancelOn: cancelOn, graceSeconds: graceSeconds)))
        guard let first = outcomes.first else { throw ScheddError(.protocolError, "Push answered no outcome") }
        return first
    }

    /// Time passing by a systemd span (`90s`, `15min`, `10h`, `1d 6h`); returns the new now.
    @discardableResult
    public func advance(_ span: String) async throws(ScheddError) -> Date {
        guard let microseconds = spanMicroseconds(span) else {
            throw ScheddError(.invalidArgument, "advance: not a time span: '\(span)' (use 90s, 15min, 2h, '1d 6h')")
        }
        return try await advance(by: .microseconds(microseconds))
    }

    /// The machine sleeps for a systemd span and resumes (`ScheddClient.sleepClock(for:)`): late ones are
    /// shown at once, folded per app beyond the daemon's threshold, alarms never; returns the new now.
    @discardableResult
    public func sleep(_ span: String) async throws(ScheddError) -> Date {
        guard let microseconds = spanMicroseconds(span) else {
            throw ScheddError(.invalidArgument, "sleep: not a time span: '\(span)' (use 90s, 15min, 2h, '1d 6h')")
        }
        return try await client.sleepClock(for: .microseconds(microseconds)).now
    }

    /// Time passing; returns the new now.
    @discardableResult
    public func advance(by span: Duration) async throws(ScheddError) -> Date { try await client.advanceClock(by: span).now }

    /// A wall-clock step (what it jumps over is late); returns the new now.
    @discardableResult
    public func setTime(_ time: String) async throws(ScheddError) -> Date { try await client.setClock(to: time).now }

    /// To the next due instant, delivering what is due then; returns the new now.
    @discardableResult
    public func next() async throws(ScheddError) -> Date { try await client.advanceClockToNext().now }

    /// A device-zone change.
    public func zone(_ name: String) async throws(ScheddError) { try await client.setZone(name) }

    /// See `ScheddClient.runUntilIdle(limit:)`.
    @discardableResult
    public func runUntilIdle(limit: Int = 1000) async throws(ScheddError) -> Int { try await client.runUntilIdle(limit: limit) }

    public func pendingCount() async throws(ScheddError) -> Int { try await client.pendingCount() }

    public func history(limit: Int? = nil) async throws(ScheddError) -> [HistoryRecord] { try await client.history(limit: limit) }

    /// Every notification shown so far, in the order shown.
    public func shown() throws(ScheddError) -> [ShownNotification] {
        guard let text = try? String(contentsOfFile: shownPath, encoding: .utf8) else {
            throw ScheddError(.unreachable, "cannot read \(shownPath): the testbed is gone")
        }
        var result: [ShownNotification] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            do {
                result.append(try ShownNotification(json: String(line)))
            } catch {
                throw ScheddError(.protocolError, "malformed notifier line: \(line)")
            }
        }
        return result
    }

    // MARK: Processes

    private static func locateSchedd() throws(ScheddError) -> String {
        if let path = CurrentProcess.environment("SCHEDD_BINARY"), !path.isEmpty { return path }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("schedd").path
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        let beside = Bundle.main.bundleURL.appendingPathComponent("schedd").path
        if FileSystem.isExecutable(beside) { return beside }
        for directory in (CurrentProcess.environment("PATH") ?? "").split(separator: ":") {
            let candidate = "\(directory)/schedd"
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        throw ScheddError(.unreachable, "schedd not found: set SCHEDD_BINARY or put schedd on PATH")
    }

    /// Runs a command to its end; (status, stdout, stderr).
    private static func run(_ executable: String, _ arguments: [String]) throws(ScheddError) -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ScheddError(.unreachable, "cannot run \(executable): \(error)")
        }
        // The supervisor leaves both pipes once it has printed: reading to the end does not hang.
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self),
                String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// SIGTERM to the supervisor, then waits (up to 30 s) until it has torn down: it is not our child,
    /// so it is watched in /proc (gone, or a zombie nobody reaped).
    private static func stopSupervisor(_ pid: Int32) {
        guard (try? CurrentProcess.signal(pid, SignalNumber.terminate)) != nil else { return }
        let deadline = SystemTime.monotonicMilliseconds + 30_000
        while SystemTime.monotonicMilliseconds < deadline, isRunning(pid) { SystemTime.sleep(milliseconds: 2) }
    }

    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}

/// A systemd time span in microseconds (`90s`, `15min`, `2h`, `1d 6h`, `1h30m`; a bare number is
/// seconds); nil when it is not one.
func spanMicroseconds(_ text: String) -> Int64? {
    let units: [String: Int64] = [
        "us": 1, "usec": 1, "ms": 1_000, "msec": 1_000, "": 1_000_000, "s": 1_000_000, "sec": 1_000_000,
        "second": 1_000_000, "seconds": 1_000_000, "m": 60_000_000, "min": 60_000_000, "minute": 60_000_000,
        "minutes": 60_000_000, "h": 3_600_000_000, "hr": 3_600_000_000, "hour": 3_600_000_000, "hours": 3_600_000_000,
        "d": 86_400_000_000, "day": 86_400_000_000, "days": 86_400_000_000, "w": 604_800_000_000,
        "week": 604_800_000_000, "weeks": 604_800_000_000,
    ]
    var total: Int64 = 0
    var rest = Substring(text.filter { $0 != " " })
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int64(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        let unit = rest.prefix { $0.isLetter }
        rest = rest.dropFirst(unit.count)
        guard let scale = units[String(unit)] else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        total += product
    }
    return total
}
