import ScheddSystem

/// `schedd testbed [--fake-clock T] [--tz ZONE] [--notifier recording|stdout|none] [--keep] -- COMMAND…`
/// runs COMMAND against a private bus and a fake-clock daemon of its own, then tears both down and
/// exits with COMMAND's status (128 + N when a signal N killed it).
///
/// `--print-env` starts the same testbed detached (its own session) and prints the variables for
/// `eval`, with `SCHEDD_TESTBED_PID` and the caller's own bus address saved; `eval "$(schedd testbed
/// --stop)"` tears it down and gives the shell its bus address back (SIGTERM to that pid tears down too).
///
/// Signals: SIGTERM and SIGHUP sent to the testbed are passed to COMMAND, and so are SIGINT and
/// SIGQUIT when a process sent them (the terminal's ^C reaches COMMAND directly: it shares the
/// testbed's process group, the bus and the daemon have groups of their own). Whatever COMMAND
/// does — exits, crashes, is killed — the daemon and the bus are stopped (SIGTERM, then SIGKILL
/// after 3 s) and the directory removed. Only SIGKILL of the testbed itself leaves them running.
func runTestbedCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let options = try TestbedOptions(args)
    if options.stop { return try stopDetachedTestbed(json: options.json) }
    TestbedSignals.block()
    if options.printEnvironment {
        return environment(testbedSupervisorVariable) == "1"
            ? superviseDetachedTestbed(options) : try startDetachedTestbed(options)
    }
    let testbed = try Testbed(options: options)
    let interrupted: TestbedSignals.Received?
    do {
        interrupted = try testbed.start()
    } catch {
        testbed.tearDown()
        throw error
    }
    if let interrupted {
        testbed.tearDown()
        CurrentProcess.exit(128 + interrupted.number)
    }
    let command: ChildProcess
    do {
        command = try ChildProcess(name: "COMMAND", options.command,
                                   environment: testbed.childEnvironment(adding: testbed.variables), stdin: .inherit,
                                   inheritDescriptors: true)
    } catch {
        testbed.tearDown()
        throw error
    }
    var daemonReported = false
    while !command.poll() {
        guard let signal = TestbedSignals.next(milliseconds: nil) else { continue }
        if signal.number == SignalNumber.childStatus {
            if !daemonReported, let daemon = testbed.daemon, daemon.poll() {
                daemonReported = true
                Console.err("schedd: testbed: the daemon \(daemon.statusText) while COMMAND ran: "
                            + tail(of: testbed.daemonLogPath))
            }
            continue
        }
        if signal.number == SignalNumber.terminate || signal.number == SignalNumber.hangUp || signal.sentByProcess { command.signal(signal.number) }
    }
    testbed.tearDown()
    CurrentProcess.exit(command.shellStatus ?? ExitCode.failure.rawValue)
}
