import Glibc

/// A process the testbed started with `posix_spawn(3)`, and every process-control call it makes
/// (`posix_spawn`, `waitpid`, `kill`): the one place these system calls live.
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

    let pid: pid_t
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .append(let path):
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            case .descriptor(let parent): posix_spawn_file_actions_adddup2(&actions, parent, fd)
            }
        }
        for (child, parent) in extra { posix_spawn_file_actions_adddup2(&actions, parent, child) }
        if !inheritDescriptors {
            let kept = Set([0, 1, 2] + extra.map(\.child))
            for fd in openDescriptors() where !kept.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in TestbedSignals.handled { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newSession {
            flags |= posixSpawnSetSID
        } else if ownGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for p in cArguments { free(p) }
            for p in cEnvironment { free(p) }
        }
        var child: pid_t = 0
        let result = argv[0].contains("/")
            ? posix_spawn(&child, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
            : posix_spawnp(&child, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
        guard result == 0 else {
            throw .failure("testbed: cannot start \(name) '\(argv[0])': \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// Whether the child has been reaped.
    var exited: Bool { status != nil }

    /// Reaps the child if it has exited (`waitpid(WNOHANG)`); returns whether it has.
    @discardableResult
    func poll() -> Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        let r = waitpid(pid, &raw, WNOHANG)
        if r == pid { status = raw }
        return status != nil
    }

    /// Waits until the child exits and reaps it.
    func wait() {
        while status == nil {
            var raw: Int32 = 0
            let r = waitpid(pid, &raw, 0)
            if r == pid { status = raw } else if r < 0 && errno != EINTR { status = 0 }
        }
    }

    /// Sends `signal` unless the child was already reaped.
    func signal(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// Stops the child: SIGTERM, then SIGKILL when it has not exited within `graceMilliseconds`
    /// (a process that is stuck, or stopped, still goes). Returns whether SIGKILL was needed.
    @discardableResult
    func stop(graceMilliseconds: Int) -> Bool {
        if poll() { return false }
        signal(SIGTERM)
        let deadline = monotonicMilliseconds() + Int64(graceMilliseconds)
        while monotonicMilliseconds() < deadline {
            if poll() { return false }
            TestbedSignals.waitForChild(milliseconds: 20)
        }
        if poll() { return false }
        signal(SIGKILL)
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

/// The descriptors open in this process (from /proc/self/fd), the listing's own excepted.
func openDescriptors() -> [Int32] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var result: [Int32] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if let fd = Int32(name), fd != own { result.append(fd) }
    }
    return result
}

/// glibc's `POSIX_SPAWN_SETSID` (2.26+), which Swift does not import without `_GNU_SOURCE`.
private let posixSpawnSetSID: Int32 = 0x80

/// `pipe(2)` with both ends close-on-exec, so no other child inherits them; false on failure.
func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}

/// CLOCK_MONOTONIC in milliseconds.
func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}
