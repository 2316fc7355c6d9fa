import Glibc
import CLinuxProcess

/// Starts an app's command line (a `.launch` plan) as a detached process: its own session
/// (`setsid`), stdin/stdout/stderr on /dev/null, the daemon's environment plus the activation
/// variables. `posix_spawnp` searches `PATH` and (glibc ≥ 2.24) reports a failed `exec` as its
/// result, so "whether it worked" means "the program was found and started".
///
/// Launched processes are children of the daemon until they exit; `reapExited()` collects those that
/// did (call it now and then — the daemon does on every launch and interaction), so none lingers as
/// a zombie for longer than the next call. Not thread-safe: the daemon's loop thread.
public final class AppLauncher {
    private var children: [pid_t] = []

    public init() {}

    /// Starts `arguments` (argv[0] looked up in PATH); returns the pid, or throws the errno text.
    public func launch(arguments: [String], environment extra: [String: String]) throws(AppLaunchError) -> Int32 {
        reapExited()
        guard let program = arguments.first else { throw AppLaunchError("empty command line") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, clinux_spawn_setsid() | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extra[name] == nil { environment.append(text) }
            index += 1
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { environment.append("\(name)=\(value)") }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard r == 0 else { throw AppLaunchError("cannot start \(program): \(String(cString: strerror(r)))") }
        children.append(pid)
        return pid
    }

    /// Reaps launched processes that have exited (non-blocking). O(launched and still running).
    public func reapExited() {
        children.removeAll { pid in
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            return r == pid || (r < 0 && errno == ECHILD)
        }
    }

    /// Launched processes not yet reaped.
    public var runningCount: Int { children.count }
}

/// A command that could not be started.
public struct AppLaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
