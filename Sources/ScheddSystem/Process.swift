// Processes: pidfds (`pidfd_open`), spawning (`posix_spawnp`), reaping (`waitpid`), signals (`kill`),
// this process's ids and environment.
import CLinuxProcess
import Glibc

/// A pidfd (`pidfd_open(2)`): refers to one process for good, even once its PID is reused.
public struct ProcessDescriptor: Sendable, Hashable {
    public let descriptor: FileDescriptor

    /// Wraps a pidfd someone else opened (the bus's `SD_BUS_CREDS_PIDFD`); the caller keeps owning it.
    public init(borrowing descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// `pidfd_open(pid, 0)`; close it with `close()`.
    public static func open(pid: Int32) throws(Errno) -> ProcessDescriptor {
        ProcessDescriptor(borrowing: FileDescriptor(rawValue: try valueOrErrno(pidfd_open(pid, 0))))
    }

    /// True once the process has exited (a pidfd polls readable then). Does not wait. A failed poll
    /// counts as exited (the process can no longer be vouched for).
    public var hasExited: Bool { (try? descriptor.waitReadable(milliseconds: 0)) ?? true }

    public func close() { descriptor.close() }

    /// The PID this pidfd refers to in this PID namespace (`Pid:` of /proc/self/fdinfo/FD); nil when
    /// it cannot be read, -1 once the process has been reaped.
    public var pid: Int32? {
        guard let file = try? FileDescriptor.open("/proc/self/fdinfo/\(descriptor.rawValue)", .readOnly) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(upTo: 4096) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pid:") {
            return Int32(line.dropFirst(4).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
        }
        return nil
    }
}

/// This process.
public enum CurrentProcess {
    /// `getpid()`.
    public static var id: Int32 { getpid() }
    /// `geteuid()`.
    public static var effectiveUserID: UInt32 { geteuid() }
    /// `getuid()`.
    public static var realUserID: UInt32 { getuid() }

    /// Now on CLOCK_BOOTTIME, in µs: the clock of a process's start time in /proc/PID/stat.
    public static var bootTimeMicroseconds: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1000)
    }

    /// Clock ticks per second (`sysconf(_SC_CLK_TCK)`), the unit of /proc/PID/stat's times.
    public static var clockTicksPerSecond: UInt64 { UInt64(max(1, sysconf(Int32(_SC_CLK_TCK)))) }

    /// `getenv(3)`: the variable's value, nil when unset.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The whole environment (`environ`), as `NAME=value` strings in their order.
    public static var environment: [String] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            entries.append(String(cString: entry))
            index += 1
        }
        return entries
    }

    /// `setenv(3)` (overwriting).
    public static func setEnvironment(_ name: String, _ value: String) { setenv(name, value, 1) }

    /// `unsetenv(3)`.
    public static func unsetEnvironment(_ name: String) { unsetenv(name) }

    /// `kill(pid, signal)`. 0 checks that the process exists.
    public static func signal(_ pid: Int32, _ signal: Int32) throws(Errno) { _ = try valueOrErrno(kill(pid, signal)) }

    /// `exit(3)`.
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}

/// How a child is started: `posix_spawnp(3)` (argv[0] looked up in `PATH` when it has no `/`). glibc
/// (≥ 2.24) reports a failed `exec` as the result, so success means the program was found and started.
public struct SpawnRequest: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable, Hashable {
        /// The parent's descriptor of that number.
        case inherit
        /// `/dev/null`.
        case null
        /// A file, created (0600) or appended to.
        case append(String)
        /// A descriptor of the parent's, duplicated onto the stream.
        case descriptor(FileDescriptor)
    }

    /// The child's process group and session.
    public enum Grouping: Sendable, Hashable {
        /// The parent's.
        case inherit
        /// A process group of its own (`POSIX_SPAWN_SETPGROUP`): a terminal's ^C does not reach it.
        case ownGroup
        /// A session of its own (`POSIX_SPAWN_SETSID`): detached from the terminal.
        case newSession
    }

    public var arguments: [String]
    /// `NAME=value` strings.
    public var environment: [String]
    public var stdin: Stream = .null
    public var stdout: Stream = .inherit
    public var stderr: Stream = .inherit
    /// Further descriptors: the child's number → the parent's descriptor.
    public var extra: [(child: Int32, parent: FileDescriptor)] = []
    public var grouping: Grouping = .inherit
    /// Signals reset to their default action in the child (its signal mask is always emptied).
    public var defaultSignals: [Int32] = []
    /// Closes every other descriptor of the parent's in the child (those not close-on-exec too).
    public var closeOtherDescriptors = false

    public init(arguments: [String], environment: [String]) {
        self.arguments = arguments
        self.environment = environment
    }
}

/// Children: start, reap, and the raw wait status.
public enum ChildProcesses {
    /// Starts `request`; returns the child's pid. Throws the errno of a failed start (`ENOENT`: no such
    /// program).
    public static func spawn(_ request: SpawnRequest) throws(Errno) -> Int32 {
        guard let program = request.arguments.first else { throw Errno.invalidArgument }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), request.stdin), (1, request.stdout), (2, request.stderr)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .append(let path):
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            case .descriptor(let parent): posix_spawn_file_actions_adddup2(&actions, parent.rawValue, fd)
            }
        }
        for (child, parent) in request.extra { posix_spawn_file_actions_adddup2(&actions, parent.rawValue, child) }
        if request.closeOtherDescriptors {
            let kept = Set([0, 1, 2] + request.extra.map(\.child))
            for fd in openDescriptors() where !kept.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in request.defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        switch request.grouping {
        case .inherit: break
        case .ownGroup:
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        case .newSession: flags |= Int32(clinux_spawn_setsid())
        }
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let argv: [UnsafeMutablePointer<CChar>?] = request.arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = request.environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let result = posix_spawnp(&child, program, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Errno(rawValue: result) }
        return child
    }

    /// Starts `arguments[0]` (an absolute path) as a process that is nobody's child here: fork, setsid,
    /// fork again, the middle process reaped at once, the grandchild with a clean signal mask and
    /// default dispositions, stdin/stdout/stderr on /dev/null, `environment` as its whole environment
    /// (CLinuxProcess's `clinux_spawn_detached`: only async-signal-safe calls between fork and exec).
    /// Returns the grandchild's pid; throws the errno of fork, setsid or execve (`ENOENT`: no program).
    public static func spawnDetached(arguments: [String], environment: [String]) throws(Errno) -> Int32 {
        guard let path = arguments.first, path.hasPrefix("/") else { throw Errno.invalidArgument }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        let r = clinux_spawn_detached(path, argv, envp)
        guard r > 0 else { throw Errno(rawValue: -r) }
        return r
    }

    /// `waitpid(pid, WNOHANG)`: the raw wait status once the child has exited (it is then reaped), nil
    /// while it runs. Throws `noChildProcess` when `pid` is no child (or was reaped already).
    public static func reapIfExited(_ pid: Int32) throws(Errno) -> Int32? {
        var status: Int32 = 0
        let r = try retryingInterrupts { waitpid(pid, &status, WNOHANG) }
        return r == pid ? status : nil
    }

    /// `waitpid(pid, 0)`: waits until the child exits and reaps it; returns the raw wait status.
    public static func waitForExit(_ pid: Int32) throws(Errno) -> Int32 {
        var status: Int32 = 0
        _ = try retryingInterrupts { waitpid(pid, &status, 0) }
        return status
    }

    /// The descriptors open in this process (from /proc/self/fd), the listing's own excepted.
    public static func openDescriptors() -> [Int32] {
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
}

/// A raw `waitpid` status read the shell's way.
public struct WaitStatus: Hashable, Sendable {
    public let rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    /// The signal that killed the process, nil when it exited.
    public var signal: Int32? { rawValue & 0x7f == 0 ? nil : rawValue & 0x7f }
    /// The exit code, nil when a signal killed it.
    public var exitCode: Int32? { signal == nil ? (rawValue >> 8) & 0xff : nil }
    /// The exit code, or 128 + the signal.
    public var shellStatus: Int32 { signal.map { 128 + $0 } ?? exitCode ?? 0 }
}

/// Signal numbers by name (Linux values; the C name in each comment).
public enum SignalNumber {
    /// `SIGHUP`.
    public static let hangUp = SIGHUP
    /// `SIGINT`.
    public static let interrupt = SIGINT
    /// `SIGKILL`.
    public static let kill = SIGKILL
    /// `SIGPIPE`.
    public static let brokenPipe = SIGPIPE
    /// `SIGTERM`.
    public static let terminate = SIGTERM
    /// `SIGCHLD`.
    public static let childStatus = SIGCHLD
    /// `SIGSTOP`.
    public static let stop = SIGSTOP
    /// `SIGCONT`.
    public static let `continue` = SIGCONT
}
