import ScheddClientCore
/// The process exit codes of CONTRACT §6.
enum ExitCode: Int32, Sendable {
    /// Done.
    case success = 0
    /// Input rejected: the message names the member and the rule.
    case rejected = 1
    /// Usage error: unknown subcommand or option, missing or malformed argument.
    case usage = 2
    /// The daemon is unreachable, or another failure (storage, system call).
    case failure = 3
}

/// A failure that ends a command: the one-line message for stderr and the exit code.
///
/// The message never carries notification text (titles and bodies are private); it names the
/// argument, member or bus concerned.
struct CommandFailure: Error, Sendable, CustomStringConvertible {
    var code: ExitCode
    var message: String
    /// Printed to stdout instead of the message when `--json` is given (`{"error": …}`), if set.
    var jsonBody: String?
    /// The member, rule and position of the daemon's error, as data, when it named them.
    var detail: SchedulerErrorDetail?

    init(_ code: ExitCode, _ message: String, jsonBody: String? = nil, detail: SchedulerErrorDetail? = nil) {
        self.code = code; self.message = message; self.jsonBody = jsonBody; self.detail = detail
    }

    static func usage(_ message: String) -> CommandFailure { CommandFailure(.usage, message) }
    static func rejected(_ message: String) -> CommandFailure { CommandFailure(.rejected, message) }
    static func failure(_ message: String) -> CommandFailure { CommandFailure(.failure, message) }

    var description: String { message }
}
