import ScheddSystem

/// Starts an app's command line (a `.launch` plan) as a detached process: its own session
/// (`setsid`), stdin/stdout/stderr on /dev/null, the daemon's environment plus the activation
/// variables. `posix_spawnp` searches `PATH` and (glibc ≥ 2.24) reports a failed `exec` as its
/// result, so "whether it worked" means "the program was found and started".
///
/// Launched processes are children of the daemon until they exit; `reapExited()` collects those that
/// did (call it now and then — the daemon does on every launch and interaction), so none lingers as
/// a zombie for longer than the next call. Not thread-safe: the daemon's loop thread.
public final class AppLauncher {
    private var children: [Int32] = []

    public init() {}

    /// Starts `arguments` (argv[0] looked up in PATH); returns the pid, or throws the errno text.
    public func launch(arguments: [String], environment extra: [String: String]) throws(AppLaunchError) -> Int32 {
        reapExited()
        guard let program = arguments.first else { throw AppLaunchError("empty command line") }
        var environment: [String] = []
        for text in CurrentProcess.environment {
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extra[name] == nil { environment.append(text) }
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { environment.append("\(name)=\(value)") }

        var request = SpawnRequest(arguments: arguments, environment: environment)
        request.stdin = .null
        request.stdout = .null
        request.stderr = .null
        request.grouping = .newSession
        request.defaultSignals = [SignalNumber.terminate, SignalNumber.interrupt, SignalNumber.hangUp,
                                  SignalNumber.brokenPipe, SignalNumber.childStatus]
        do {
            let pid = try ChildProcesses.spawn(request)
            children.append(pid)
            return pid
        } catch {
            throw AppLaunchError("cannot start \(program): \(error)")
        }
    }

    /// Reaps launched processes that have exited (non-blocking). O(launched and still running).
    public func reapExited() {
        children.removeAll { pid in
            do throws(Errno) { return try ChildProcesses.reapIfExited(pid) != nil } catch { return error == .noChildProcess }
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
