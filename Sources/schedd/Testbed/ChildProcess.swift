import ScheddSystem

/// A process the testbed started, and the process control it does (start, reap, signal), all through
/// ScheddSystem's `ChildProcesses` (`posix_spawnp`, `waitpid`, `kill`).
///
/// Invariant: a `ChildProcess` is reaped at most once; after `status` is set, `signal` does nothing
/// (the pid may belong to someone else by then).
final class ChildProcess {
    /// Where a standard stream of the child goes.
    enum Stream {
        /// The testbed's own descriptor of that number (the child shares the terminal).
        case inherit
        /// `/dev/null`.
        case null
        /// A file, created (0600) or appended to.
        case append(String)
        /// A descriptor of the testbed's (the write end of a pipe), duplicated onto the stream.
        case descriptor(Int32)
    }

    let pid: Int32
    let name: String
    /// The raw `waitpid` status once the child was reaped; nil while it runs.
    private(set) var status: Int32?

    /// Starts `argv` (`argv[0]` looked up in `PATH` when it has no `/`) with `environment`
    /// (`NAME=value` strings). Signals the testbed blocks are unblocked and reset to their default
    /// action in the child. `ownGroup` puts it in a process group of its own, so a terminal's ^C
    /// (sent to the foreground group) does not reach it; `newSession` detaches it from the terminal.
    /// `extra` maps a descriptor of the child to one of the testbed's (`--print-address=3`).
    ///
    /// Unless `inheritDescriptors`, the child gets no descriptor of the testbed's but its three
    /// streams and `extra`: a caller's descriptors (Foundation's `Process` watches a socket it hands
    /// its child, and waits until every copy is closed) must not live on in the bus or the daemon.
    init(name: String, _ argv: [String], environment: [String], stdin: Stream = .null, stdout: Stream = .inherit,
         stderr: Stream = .inherit, extra: [(child: Int32, parent: Int32)] = [], ownGroup: Bool = false,
         newSession: Bool = false, inheritDescriptors: Bool = false) throws(CommandFailure) {
        self.name = name
        func stream(_ stream: Stream) -> SpawnRequest.Stream {
            switch stream {
            case .inherit: .inherit
            case .null: .null
            case .append(let path): .append(path)
            case .descriptor(let parent): .descriptor(FileDescriptor(rawValue: parent))
            }
        }
        var request = SpawnRequest(arguments: argv, environment: environment)
        request.stdin = stream(stdin)
        request.stdout = stream(stdout)
        request.stderr = stream(stderr)
        request.extra = extra.map { ($0.child, FileDescriptor(rawValue: $0.parent)) }
        request.closeOtherDescriptors = !inheritDescriptors
        request.defaultSignals = TestbedSignals.handled
        request.grouping = newSession ? .newSession : ownGroup ? .ownGroup : .inherit
        do { pid = try ChildProcesses.spawn(request) } catch {
            throw .failure("testbed: cannot start \(name) '\(argv[0])': \(error)")
        }
    }

    /// Whether the child has been reaped.
    var exited: Bool { status != nil }

    /// Reaps the child if it has exited (`waitpid(WNOHANG)`); returns whether it has.
    @discardableResult
    func poll() -> Bool {
        if status != nil { return true }
        if let reaped = try? ChildProcesses.reapIfExited(pid) { status = reaped }
        return status != nil
    }

    /// Waits until the child exits and reaps it.
    func wait() {
        guard status == nil else { return }
        do { status = try ChildProcesses.waitForExit(pid) } catch { status = 0 }
    }

    /// Sends `signal` unless the child was already reaped.
    func signal(_ signal: Int32) {
        if status == nil { try? CurrentProcess.signal(pid, signal) }
    }

    /// Stops the child: SIGTERM, then SIGKILL when it has not exited within `graceMilliseconds`
    /// (a process that is stuck, or stopped, still goes). Returns whether SIGKILL was needed.
    @discardableResult
    func stop(graceMilliseconds: Int) -> Bool {
        if poll() { return false }
        signal(SignalNumber.terminate)
        let deadline = monotonicMilliseconds() + Int64(graceMilliseconds)
        while monotonicMilliseconds() < deadline {
            if poll() { return false }
            TestbedSignals.waitForChild(milliseconds: 20)
        }
        if poll() { return false }
        signal(SignalNumber.kill)
        wait()
        return true
    }

    /// The shell's view of the status: the exit code, or 128 + the signal that killed it.
    var shellStatus: Int32? {
        guard let raw = status else { return nil }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// "exited with status N" or "was killed by signal N".
    var statusText: String {
        guard let raw = status else { return "is running" }
        let signal = raw & 0x7f
        return signal == 0 ? "exited with status \((raw >> 8) & 0xff)" : "was killed by signal \(signal)"
    }
}

/// `pipe(2)` with both ends close-on-exec, so no other child inherits them; false on failure.
func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
    guard let pipe = try? FileDescriptor.pipe() else { return false }
    ends = [pipe.read.rawValue, pipe.write.rawValue]
    return true
}

/// CLOCK_MONOTONIC in milliseconds.
func monotonicMilliseconds() -> Int64 { SystemTime.monotonicMilliseconds }
