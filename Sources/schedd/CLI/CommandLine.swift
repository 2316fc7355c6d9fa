import Scheduler

/// Runs the `schedd` command line (arguments without the program name); returns the exit code.
/// Diagnostics go to stderr as one `schedd: …` line; with `--json`, a rejected input also prints
/// `{"error": …}` on stdout.
func runCommandLine(_ arguments: [String]) -> ExitCode {
    var json = arguments.contains("--json")
    do throws(CommandFailure) {
        let args = try parseArguments(arguments)
        json = args.json
        if args.has("help") {
            Console.out(commandHelp(commandSpec(named: args.command)!))
            return .success
        }
        switch args.command {
        case "help":
            if let name = args.positionals.first {
                guard let spec = commandSpec(named: name) else {
                    let hint = closestMatch(to: name, among: commandTable.map(\.name)).map { "; did you mean '\($0)'?" }
                    throw .usage("unknown command '\(name)'\(hint ?? "")")
                }
                Console.out(commandHelp(spec))
            } else {
                Console.out(overallHelp())
            }
        case "version": Console.out("schedd 0.1")
        case "run": return try runDaemonCommand(args)
        case "calendar": try runCalendarCommand(args, now: SystemClock().now)
        case "resolve": try runResolveCommand(args)
        case "push": return try runPushCommand(args)
        case "track": try runTrackCommand(args)
        case "cancel": try runCancelCommand(args)
        case "list": try runListCommand(args)
        case "history": try runHistoryCommand(args)
        case "clock": try runClockCommand(args)
        case "testbed": return try runTestbedCommand(args)
        default: throw .usage("unknown command '\(args.command)'")
        }
        return .success
    } catch {
        if json, let body = error.jsonBody { Console.out(body) }
        if !error.message.isEmpty { Console.err("schedd: \(error.message)") }
        return error.code
    }
}
