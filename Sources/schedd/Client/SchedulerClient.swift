import Scheduler

/// The CLI's connection to the daemon: calls methods of org.schedd.Scheduler1 and turns every
/// failure into the contract's exit code with a one-line message naming the bus.
final class SchedulerClient {
    let connection: BusConnection

    init(target: BusTarget) throws(CommandFailure) {
        do {
            connection = try BusConnection.open(target)
        } catch {
            throw .failure("no schedd daemon reachable: \(error.message)")
        }
    }

    var target: BusTarget { connection.target }

    /// Calls `member` with arguments appended by `build` and hands the reply to `read`.
    /// `timeoutMicroseconds` 0 is sd-bus's default of 25 s.
    func call<T>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                 _ build: (BusMessage) throws(BusFailure) -> Void,
                 read: (BusMessage) throws(BusFailure) -> T) throws(CommandFailure) -> T {
        let reply: BusMessage
        do {
            reply = try connection.callScheduler(member, timeoutMicroseconds: timeoutMicroseconds, build)
        } catch {
            throw failure(for: error)
        }
        defer { reply.release() }
        do {
            return try read(reply)
        } catch {
            throw .failure("unexpected reply to \(member) from \(target): \(error.message)")
        }
    }

    /// Maps a failed call to the CLI's exit codes (BusErrorName.exitCode).
    private func failure(for error: BusFailure) -> CommandFailure {
        switch error.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown"?, "org.freedesktop.DBus.Error.NameHasNoOwner"?:
            return .failure("no schedd daemon answers on \(target): \(BusNames.service) is not on the bus")
        case "org.freedesktop.DBus.Error.NoReply"?, "org.freedesktop.DBus.Error.Timeout"?:
            return .failure("the schedd daemon on \(target) did not answer in time")
        case accessDeniedErrorName?:
            // Refused by the daemon's own check (--allow-group) or by the bus policy.
            let message = "access denied on \(target): \(error.message)"
            return CommandFailure(.failure, message,
                                  jsonBody: JSONValue.object([JSONMember("error", .string(message))]).serialized())
        case let name? where BusErrorName(rawValue: name) != nil:
            let code = BusErrorName(rawValue: name)!.exitCode
            return CommandFailure(code, error.message,
                                  jsonBody: JSONValue.object([JSONMember("error", .string(error.message))]).serialized())
        case let name?:
            return .failure("the schedd daemon on \(target) failed: \(name): \(error.message)")
        case nil:
            return .failure("no schedd daemon answers on \(target): \(error.message)")
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
