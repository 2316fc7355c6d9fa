import ScheddSystem

/// Starts an app's command line (a `.launch` plan) as a process that is not schedd's: when no systemd
/// user manager can start it as a transient unit (ScheddDesktop's TransientUnitLauncher), this is the
/// fallback. Fork, `setsid`, fork again (`ChildProcesses.spawnDetached`): the middle process exits at
/// once and is reaped, so the app is reparented to init (or the nearest subreaper), has its own
/// session, stdin/stdout/stderr on /dev/null, a clean signal mask, and the daemon's environment plus
/// the activation variables. It still inherits what the service manager imposed on schedd (its
/// cgroup and, under schedd.service, the sandbox: no network, read-only home, …; docs/apps.md).
///
/// "Whether it worked" means "the program was found and exec'd" (the exec's errno comes back through
/// a close-on-exec pipe). Nothing is left to reap. Loop thread (it waits microseconds for the exec).
public final class AppLauncher {
    public init() {}

    /// Starts `arguments` (argv[0] looked up in PATH); returns the app's pid, or throws the errno text.
    public func launch(arguments: [String], environment extra: [String: String]) throws(AppLaunchError) -> Int32 {
        guard let program = arguments.first else { throw AppLaunchError("empty command line") }
        guard let path = Self.resolve(program) else {
            throw AppLaunchError("cannot start \(program): \(Errno.noSuchFileOrDirectory)")
        }
        do {
            return try ChildProcesses.spawnDetached(arguments: [path] + arguments.dropFirst(),
                                                    environment: Self.environment(with: extra))
        } catch {
            throw AppLaunchError("cannot start \(program): \(error)")
        }
    }

    /// The daemon's environment with `extra` set over it ("NAME=value", sorted extras last).
    public static func environment(with extra: [String: String]) -> [String] {
        var environment: [String] = []
        for text in CurrentProcess.environment {
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extra[name] == nil { environment.append(text) }
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { environment.append("\(name)=\(value)") }
        return environment
    }

    /// `program` as an absolute path: as it is when it holds a `/`, else the first executable regular
    /// file of that name in the daemon's `PATH` (default `/usr/local/bin:/usr/bin:/bin`); nil when none.
    public static func resolve(_ program: String) -> String? {
        if program.contains("/") { return program.hasPrefix("/") ? program : nil }
        let search = CurrentProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in search.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(program)"
            if let info = try? FileSystem.status(candidate), info.isRegularFile, FileSystem.isExecutable(candidate) {
                return candidate
            }
        }
        return nil
    }
}

/// A command that could not be started.
public struct AppLaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
