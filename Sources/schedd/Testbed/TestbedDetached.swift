import Scheduler
import ScheddSystem

// `schedd testbed --print-env` and `--stop`: a testbed that outlives the command starting it.
//
// The command re-runs itself as a supervisor in a session of its own (no terminal, so a ^C in the
// shell does not reach it) with its standard output on a pipe. The supervisor starts the testbed,
// prints the variables on that pipe, moves its own stdout and stderr to /dev/null and the testbed's
// log (so a caller reading both to their end — `$(…)`, Python's `subprocess.run` — is not held),
// and waits for SIGTERM, SIGINT or SIGHUP, or for the bus or the daemon to die; then it tears down.

/// The starting side: runs the supervisor and passes on what it prints (or its failure).
func startDetachedTestbed(_ options: TestbedOptions) throws(CommandFailure) -> ExitCode {
    let ends: (read: FileDescriptor, write: FileDescriptor)
    do { ends = try FileDescriptor.pipe() } catch { throw .failure("testbed: pipe: \(error)") }
    let supervisor: ChildProcess
    do {
        supervisor = try ChildProcess(
            name: "the testbed supervisor", [try executablePath()] + Array(CommandLine.arguments.dropFirst()),
            environment: environmentEntries(dropping: [testbedSupervisorVariable]) + ["\(testbedSupervisorVariable)=1"],
            stdout: .descriptor(ends.write.rawValue), newSession: true)
    } catch {
        ends.read.close(); ends.write.close()
        throw error
    }
    ends.write.close()
    var output: [UInt8] = []
    while let chunk = try? ends.read.read(upTo: 4096), !chunk.isEmpty { output += chunk }
    ends.read.close()
    if output.isEmpty {
        supervisor.wait()
        return ExitCode(rawValue: supervisor.shellStatus ?? 3) ?? .failure
    }
    Console.writeAll(1, String(decoding: output, as: UTF8.self))
    return .success
}

/// The supervisor: starts the testbed, prints the variables, waits, tears down.
func superviseDetachedTestbed(_ options: TestbedOptions) -> ExitCode {
    let testbed: Testbed
    do {
        testbed = try Testbed(options: options)
        if let signal = try testbed.start() {
            testbed.tearDown()
            return ExitCode(rawValue: 128 + signal.number) ?? .failure
        }
    } catch {
        Console.err("schedd: \(error.message)")
        return error.code
    }
    let variables = testbed.variables + [("SCHEDD_TESTBED_PID", "\(CurrentProcess.id)")]
    if options.json {
        Console.out(JSONValue.object(variables.map { JSONMember($0.0, .string($0.1)) }).serialized())
    } else {
        // The caller's bus address first, so that `eval "$(schedd testbed --stop)"` gives it back.
        let saved = [(savedBusVariable, environment("DBUS_SESSION_BUS_ADDRESS") ?? "")]
        for (name, value) in saved + variables { Console.out("\(name)=\(shellQuoted(value)); export \(name);") }
    }
    if let null = try? FileDescriptor.open("/dev/null", .readWrite) {
        let log = try? FileDescriptor.open(testbed.directory + "/testbed.log", .writeOnly, options: [.create, .append])
        try? null.duplicate(onto: .standardOutput)
        try? (log ?? null).duplicate(onto: .standardError)
    }
    while true {
        guard let signal = TestbedSignals.next(milliseconds: nil) else { continue }
        if signal.number != SignalNumber.childStatus { break }
        if let daemon = testbed.daemon, daemon.poll() {
            Console.err("schedd: testbed: the daemon \(daemon.statusText): \(tail(of: testbed.daemonLogPath))")
            break
        }
        if let bus = testbed.bus, bus.poll() {
            Console.err("schedd: testbed: dbus-daemon \(bus.statusText)")
            break
        }
    }
    testbed.tearDown()
    return .success
}

/// Where `--print-env` keeps the caller's DBUS_SESSION_BUS_ADDRESS ("" when it had none).
let savedBusVariable = "SCHEDD_TESTBED_SAVED_DBUS_SESSION_BUS_ADDRESS"

/// `--stop`: SIGTERM to the supervisor `$SCHEDD_TESTBED_PID` names, then waits until it has torn
/// down (it is gone, or a zombie whose parent has not reaped it). Prints, for `eval`, the lines that
/// give the shell its own bus address back and drop the testbed's variables (as `ssh-agent -k`
/// does); `--json` prints nothing.
func stopDetachedTestbed(json: Bool) throws(CommandFailure) -> ExitCode {
    guard let text = environment("SCHEDD_TESTBED_PID"), let pid = Int32(text), pid > 1 else {
        throw .usage("testbed --stop needs SCHEDD_TESTBED_PID (from 'eval \"$(schedd testbed --print-env)\"')")
    }
    guard processEnvironment(of: pid).contains("\(testbedSupervisorVariable)=1") else {
        throw .failure("testbed --stop: process \(pid) is not a running schedd testbed")
    }
    try? CurrentProcess.signal(pid, SignalNumber.terminate)
    let deadline = monotonicMilliseconds() + Int64(4 * TestbedOptions.stopGraceMilliseconds)
    while processIsAlive(pid) {
        if monotonicMilliseconds() > deadline { throw .failure("testbed --stop: process \(pid) is still running") }
        SystemTime.sleep(milliseconds: 5)
    }
    if !json { Console.out(restoringLines(saved: environment(savedBusVariable))) }
    return .success
}

/// The sh lines `eval "$(schedd testbed --stop)"` runs: DBUS_SESSION_BUS_ADDRESS as it was before
/// `--print-env` (unset when it was unset or empty, or when no saved value is there), then the
/// testbed's own variables unset.
func restoringLines(saved: String?) -> String {
    let bus = saved.map { $0.isEmpty ? "unset DBUS_SESSION_BUS_ADDRESS;"
                          : "DBUS_SESSION_BUS_ADDRESS=\(shellQuoted($0)); export DBUS_SESSION_BUS_ADDRESS;" }
        ?? "unset DBUS_SESSION_BUS_ADDRESS;"
    return bus + "\nunset SCHEDD_TESTBED SCHEDD_TESTBED_PID \(savedBusVariable);"
}

/// `value` as one sh word in single quotes.
func shellQuoted(_ value: String) -> String {
    "'" + value.replacingAll("'", with: "'\\''") + "'"
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in the daemon's binary).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}

/// The `NAME=value` entries of /proc/PID/environ ([] when unreadable).
func processEnvironment(of pid: Int32) -> [String] {
    guard let fd = try? FileDescriptor.open("/proc/\(pid)/environ", .readOnly) else { return [] }
    defer { fd.close() }
    var bytes: [UInt8] = []
    while let chunk = try? fd.read(upTo: 4096), !chunk.isEmpty { bytes += chunk }
    return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

/// Whether `pid` runs: it exists and is not a zombie (state `Z` in /proc/PID/stat).
func processIsAlive(_ pid: Int32) -> Bool {
    guard let fd = try? FileDescriptor.open("/proc/\(pid)/stat", .readOnly) else { return false }
    defer { fd.close() }
    guard let buffer = try? fd.read(upTo: 512), let close = buffer.lastIndex(of: UInt8(ascii: ")")),
          close + 2 < buffer.count else { return false }
    return buffer[close + 2] != UInt8(ascii: "Z")
}
