import Glibc
import ScheddBus
import ScheddClientCore
import Scheduler
import ScheddSystem

/// The CLI's use of ScheddClient's blocking client (`ScheddBlockingClient`): the client for a
/// subcommand's `--bus` and `--app`, with every `ScheddError` turned into the contract's exit code and
/// a one-line message in the person's terms (`cliFailure`). No bus code of its own: names, error
/// mapping and pagers are ScheddClient's.
struct DaemonSession {
    let client: ScheddBlockingClient
    var target: BusTarget { client.target }

    /// Connects for a subcommand's `--bus` and `--app` options.
    init(_ args: ParsedArguments) throws(CommandFailure) {
        let target = try BusTarget(option: args.value("bus"))
        do {
            client = try ScheddBlockingClient(target: target, app: args.value("app"))
        } catch {
            throw cliFailure(error, target: target)
        }
    }

    private func mapped<T>(_ body: () throws(ScheddError) -> T) throws(CommandFailure) -> T {
        do { return try body() } catch { throw cliFailure(error, target: target) }
    }

    /// Calls a method answering one string (a JSON text).
    func string(_ member: String, timeoutMicroseconds: UInt64 = 0,
                _ build: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in }) throws(CommandFailure) -> String {
        try mapped { () throws(ScheddError) in try client.callString(member, timeoutMicroseconds: timeoutMicroseconds, build) }
    }

    /// Sends a method answering one string now; `wait` reads the answer (calls sent before share one
    /// round trip: `ScheddBlockingClient.send`).
    func sendString(_ member: String, _ build: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in })
        throws(CommandFailure) -> PendingCall<String> {
        try mapped { () throws(ScheddError) in try client.send(member, build, read: { m throws(BusError) in try m.readString() }) }
    }

    /// Writes the calls sent so far (`ScheddBlockingClient.flush`).
    func flush() { client.flush() }

    /// The answer of a call sent with `sendString` or `sendStrings`.
    func wait<T>(_ call: PendingCall<T>) throws(CommandFailure) -> T {
        try mapped { () throws(ScheddError) in try client.wait(call) }
    }

    /// Calls a method answering an array of strings.
    func strings(_ member: String, timeoutMicroseconds: UInt64 = 0,
                 _ build: (BusMessage) throws(BusError) -> Void) throws(CommandFailure) -> [String] {
        try mapped { () throws(ScheddError) in
            try client.call(member, timeoutMicroseconds: timeoutMicroseconds, build, read: { m throws(BusError) in try m.readStrings() })
        }
    }

    /// Sends a method answering an array of strings without waiting; `wait` reads the answer (the NDJSON
    /// `push` keeps two `PushBatch` calls in flight).
    func sendStrings(_ member: String, timeoutMicroseconds: UInt64,
                     _ build: (BusMessage) throws(BusError) -> Void) throws(CommandFailure) -> PendingCall<[String]> {
        try mapped { () throws(ScheddError) in
            try client.send(member, timeoutMicroseconds: timeoutMicroseconds, build, read: { m throws(BusError) in try m.readStrings() })
        }
    }

    /// Calls Track, Cancel or CancelRun: `(u count, as ids, b more)`, the ids bounded by the daemon.
    func cancelled(_ member: String, _ build: (BusMessage) throws(BusError) -> Void)
        throws(CommandFailure) -> (count: UInt32, ids: [String], more: Bool) {
        try mapped { () throws(ScheddError) in
            try client.call(member, build, read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
        }
    }

    func pendingPages(offset: Int = 0, limit: Int? = nil, allApps: Bool = false) throws(CommandFailure) -> [String] {
        try mapped { () throws(ScheddError) in try client.pendingPages(offset: offset, limit: limit, allApps: allApps) }
    }

    func pendingCount(allApps: Bool = false) throws(CommandFailure) -> Int {
        try mapped { () throws(ScheddError) in try client.pendingCount(allApps: allApps) }
    }

    func snoozed(allApps: Bool = false) throws(CommandFailure) -> String {
        try mapped { () throws(ScheddError) in try client.snoozed(allApps: allApps) }
    }

    /// Runs `body`, nil when the daemon refuses it (a sandboxed caller asking about every app): for hints.
    func ifAllowed<T>(_ body: () throws(CommandFailure) -> T) -> T? {
        do { return try body() } catch { return nil }
    }

    func historyPages(limit: Int?, allApps: Bool = false) throws(CommandFailure) -> [String] {
        try mapped { () throws(ScheddError) in try client.historyPages(limit: limit, allApps: allApps) }
    }

    /// Parses a JSON reply text.
    static func json(_ text: String, _ member: String) throws(CommandFailure) -> JSONValue {
        switch parseJSON(text) {
        case .success(let value): return value
        case .failure(let failure): throw .failure("malformed \(member) reply: \(failure.message)")
        }
    }
}

/// The CLI's exit code and message for a failed call (CONTRACT §6): the daemon's rejections exit 1
/// with its message (and `{"error"}` under `--json`), a malformed call 2, everything else 3 naming
/// the bus — an absent daemon with how to start one (`noDaemonMessage`).
func cliFailure(_ error: ScheddError, target: BusTarget) -> CommandFailure {
    func withJSON(_ code: ExitCode, _ message: String) -> CommandFailure {
        CommandFailure(code, message, jsonBody: JSONValue.object([JSONMember("error", .string(message))]).serialized(),
                       detail: error.detail)
    }
    switch error.code {
    case .invalidPush, .invalidArgument, .notFound, .notFakeClock, .quotaExceeded: return withJSON(.rejected, error.message)
    case .usage: return withJSON(.usage, error.message)
    case .storage: return withJSON(.failure, error.message)
    case .accessDenied: return withJSON(.failure, "access denied on \(target): \(error.message)")
    case .unreachable: return .failure(noDaemonMessage(target: target, connected: error.dbusName != nil))
    case .timeout: return .failure("the schedd daemon on \(target) did not answer in time")
    case .protocolError: return .failure(error.message)
    default: return .failure("the schedd daemon on \(target) failed: \(error.message)")
    }
}

/// Says that no daemon answers on `target` (or that the bus itself is not there: `connected` false)
/// and what works from here: on the session bus, the line that reaches the daemon scripts/run.sh
/// started when one serves (`RunScriptDaemon`); with no session bus at all, how to get one
/// (`noSessionBusAdvice`); else `schedd run`, or `systemctl --user start schedd`, saying whether
/// schedd.service is installed where systemd's user manager looks (docs/cli.md).
func noDaemonMessage(target: BusTarget, connected: Bool) -> String {
    let what = connected ? "no schedd daemon answers on \(target)" : "cannot connect to \(target)"
    switch target {
    case .session:
        if let daemon = RunScriptDaemon.find() { return what + ": " + daemon.hint }
        if !connected, let missing = missingSessionBus() {
            return "cannot connect to the session bus: " + missing + ": " + noSessionBusAdvice(daemon: false)
        }
        let unit = installedUserUnit()
        return what + ": start one with 'schedd run', or 'systemctl --user start schedd' "
            + (unit.map { "(schedd.service is installed: \($0))" }
               ?? "once schedd.service is installed (none in systemd's user unit directories; scripts/install.sh installs it)")
    case .system:
        return what + ": start one with 'systemctl start schedd-system' (or 'schedd run --bus system' as its user)"
    case .address(let address):
        return what + ": start one there with 'schedd run --bus \(address)'"
    }
}

/// Why this process has no session bus, in the terms of sd-bus's user-bus open call (which reads
/// `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`, and fails with ENOMEDIUM, "No medium found",
/// when neither is set); nil when one of them names a bus.
func missingSessionBus() -> String? {
    func env(_ name: String) -> String? { CurrentProcess.environment(name).flatMap { $0.isEmpty ? nil : $0 } }
    guard env("DBUS_SESSION_BUS_ADDRESS") == nil else { return nil }
    guard let runtime = env("XDG_RUNTIME_DIR") else {
        return "this shell has none (neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set: no login session)"
    }
    if FileSystem.exists(runtime + "/bus") { return nil }
    return "this shell has none (DBUS_SESSION_BUS_ADDRESS is not set and \(runtime)/bus does not exist)"
}

/// What works without a session bus: a daemon on a bus of its own. `daemon`: said to `schedd run`.
func noSessionBusAdvice(daemon: Bool) -> String {
    (daemon ? "run it on a bus of its own with 'dbus-run-session -- schedd run' (only commands started inside that "
              + "session reach it)"
            : "start a shell with a bus of its own, 'dbus-run-session -- bash', and run 'schedd run &' in it")
        + ", or use scripts/run.sh from the source tree (it starts a bus and prints the line that reaches its daemon "
        + "from another terminal), or give --bus ADDRESS"
}

/// The first schedd.service in systemd's user unit search path (systemd.unit(5), "User Unit Search
/// Path"), or nil.
private func installedUserUnit() -> String? {
    func env(_ name: String) -> String? { CurrentProcess.environment(name).flatMap { $0.isEmpty ? nil : $0 } }
    let home = env("HOME") ?? ""
    var directories = [(env("XDG_CONFIG_HOME") ?? home + "/.config") + "/systemd/user"]
    directories += (env("XDG_CONFIG_DIRS") ?? "/etc/xdg").split(separator: ":").map { $0 + "/systemd/user" }
    directories += ["/etc/systemd/user", (env("XDG_DATA_HOME") ?? home + "/.local/share") + "/systemd/user"]
    directories += (env("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map { $0 + "/systemd/user" }
    directories += ["/usr/local/lib/systemd/user", "/usr/lib/systemd/user"]
    return directories.map { $0 + "/schedd.service" }.first { FileSystem.exists($0) }
}
