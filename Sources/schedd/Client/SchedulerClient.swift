import ScheddBus
import Scheduler

/// The CLI's connection to the daemon: calls methods of org.schedd.Scheduler1 and turns every
/// failure into the contract's exit code with a one-line message naming the bus.
final class SchedulerClient {
    let connection: BusConnection

    /// Connects to the daemon on `target`; with `app` (`--app`), declares it for every later call on this
    /// connection (`DeclareApp`), so a refused or invalid id fails here, before anything is sent.
    init(target: BusTarget, app: String? = nil) throws(CommandFailure) {
        do {
            connection = try BusConnection.open(target)
        } catch {
            throw .failure("no schedd daemon reachable: \(error.detail)")
        }
        if let app {
            _ = try call("DeclareApp", { m throws(BusError) in try m.append(app) }, read: { m throws(BusError) in
                try m.readString()
            })
        }
    }

    /// The client for a subcommand's `--bus` and `--app` options.
    convenience init(_ args: ParsedArguments) throws(CommandFailure) {
        try self.init(target: BusTarget(option: args.value("bus")), app: args.value("app"))
    }

    var target: BusTarget { connection.target }

    /// Calls `member` with arguments appended by `build` and hands the reply to `read`.
    /// `timeoutMicroseconds` 0 is sd-bus's default of 25 s.
    func call<T>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                 _ build: (BusMessage) throws(BusError) -> Void,
                 read: (BusMessage) throws(BusError) -> T) throws(CommandFailure) -> T {
        var readFailure: BusError?
        let value: T?
        do {
            value = try connection.callScheduler(member, timeoutMicroseconds: timeoutMicroseconds, build,
                                                 read: { m throws(BusError) -> T? in
                do throws(BusError) { return try read(m) } catch { readFailure = error; return nil }
            })
        } catch {
            throw failure(for: error)
        }
        guard let value else {
            throw .failure("unexpected reply to \(member) from \(target): \(readFailure?.detail ?? "")")
        }
        return value
    }

    /// Maps a failed call to the CLI's exit codes (BusErrorName.exitCode).
    private func failure(for error: BusError) -> CommandFailure {
        switch error.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown"?, "org.freedesktop.DBus.Error.NameHasNoOwner"?:
            return .failure("no schedd daemon answers on \(target): \(BusNames.service) is not on the bus")
        case "org.freedesktop.DBus.Error.NoReply"?, "org.freedesktop.DBus.Error.Timeout"?:
            return .failure("the schedd daemon on \(target) did not answer in time")
        case accessDeniedErrorName?:
            // Refused by the daemon's own check (--allow-group) or by the bus policy.
            let message = "access denied on \(target): \(error.detail)"
            return CommandFailure(.failure, message,
                                  jsonBody: JSONValue.object([JSONMember("error", .string(message))]).serialized())
        case let name? where BusErrorName(rawValue: name) != nil:
            let code = BusErrorName(rawValue: name)!.exitCode
            return CommandFailure(code, error.detail,
                                  jsonBody: JSONValue.object([JSONMember("error", .string(error.detail))]).serialized())
        case let name?:
            return .failure("the schedd daemon on \(target) failed: \(name): \(error.detail)")
        case nil:
            return .failure("no schedd daemon answers on \(target): \(error.detail)")
        }
    }

    /// Parses a JSON reply string.
    static func json(_ text: String, _ member: String) throws(CommandFailure) -> JSONValue {
        switch parseJSON(text) {
        case .success(let value): return value
        case .failure(let failure): throw .failure("malformed \(member) reply: \(failure.message)")
        }
    }
}
