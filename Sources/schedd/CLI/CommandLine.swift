import Scheduler
import ScheddService

/// Runs the `schedd` command line (arguments without the program name); returns the exit code.
/// Diagnostics go to stderr as one `schedd: …` line; with `--json`, every failure — a usage error
/// (exit 2), rejected input (1) or an unreachable daemon (3) — also prints `{"error": …}` on
/// stdout, so a script reading stdout always gets JSON.
/// The version `schedd version`, the man page and `schedd status` say.
let scheddVersion = "0.1"

func runCommandLine(_ arguments: [String]) -> ExitCode {
    var json = (arguments.firstIndex(of: "--") ?? arguments.endIndex) > (arguments.firstIndex(of: "--json") ?? Int.max)
    do throws(CommandFailure) {
        let args = try parseArguments(arguments)
        json = args.json
        if args.has("help") {
            Console.out(commandHelp(commandSpec(named: args.command)!))
            return .success
        }
        return try runCommand(args)
    } catch {
        if json {
            if let body = error.jsonBody {
                Console.out(body)
            } else if !error.message.isEmpty {
                Console.out(JSONValue.object([JSONMember("error", .string(error.message))]).serialized())
            }
        }
        if !error.message.isEmpty { Console.err("schedd: \(error.message)") }
        return error.code
    }
}

/// Dispatches a parsed command line to its command (one `case` per row of `commandTable`).
private func runCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    switch args.command {
    case "help":
        if args.has("man") {
            Console.writeAll(1, manPage())
        } else if let name = args.positionals.first {
            guard let spec = commandSpec(named: name) else {
                let hint = closestMatch(to: name, among: commandTable.map(\.name)).map { "; did you mean '\($0)'?" }
                throw .usage("unknown command '\(name)'\(hint ?? "")")
            }
            Console.out(commandHelp(spec))
        } else {
            Console.out(overallHelp())
        }
    case "version": Console.out("schedd \(scheddVersion)")
    case "completion":
        guard let shell = CompletionShell(rawValue: args.positionals[0]) else {
            throw .usage("completion needs one of \(CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")), "
                         + "not '\(args.positionals[0])'")
        }
        Console.writeAll(1, completionScript(for: shell))
    case "run": return try runDaemonCommand(args)
    case "add": return try runAddCommand(args)
    case "calendar": return try runCalendarCommand(args, now: SystemClock().now)
    case "resolve": return try runResolveCommand(args)
    case "timespan": return runTimespanCommand(args)
    case "timestamp": return try runTimestampCommand(args, now: SystemClock().now)
    case "push": return try runPushCommand(args)
    case "track": try runTrackCommand(args)
    case "cancel": try runCancelCommand(args)
    case "list": try runListCommand(args)
    case "history": try runHistoryCommand(args)
    case "clock": try runClockCommand(args)
    case "status": try runStatusCommand(args)
    case "testbed": return try runTestbedCommand(args)
    case "check": return try runCheckCommand(args)
    default: throw .usage("unknown command '\(args.command)'")
    }
    return .success
}
