import Foundation
import Glibc

/// A helper process of a test (dbus-daemon, Xvfb and dunst…) that cannot outlive the test process.
///
/// It runs under Tests/Support/tether.sh, in a process group of its own, whose stdin is a pipe whose
/// write end only this process holds (close-on-exec, so no other child inherits it). `stop()` closes
/// that end; so does the kernel when the test process dies, even by SIGKILL; either way the tether
/// sends SIGTERM to the whole group. `stop()` returns once the command itself has exited.
final class TetheredProcess {
    /// The first lines the command printed on stdout (as many as `init` asked for).
    let lines: [String]
    /// The tether's pid (not the command's: ask the command for its own, e.g. `--print-pid`).
    let tether: pid_t
    private var lifeline: Int32

    /// Starts `argv` and reads its first `lines` stdout lines (at most `seconds` for them). Throws when
    /// the command ends its stdout first or is too slow; it is stopped then.
    init(_ argv: [String], lines count: Int, stderrPath: String = "/dev/null", seconds: Double = 30) throws {
        var life: [Int32] = [0, 0], out: [Int32] = [0, 0]
        guard closeOnExecPipe(&life) else { throw TestSetupError("pipe: errno \(errno)") }
        guard closeOnExecPipe(&out) else {
            close(life[0]); close(life[1])
            throw TestSetupError("pipe: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, life[0], 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let full = ["/bin/bash", Build.supportFile("tether.sh")] + argv
        var cArgs: [UnsafeMutablePointer<CChar>?] = full.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, full[0], &actions, nil, &cArgs, environ)
        close(life[0])
        close(out[1])
        defer { close(out[0]) }
        guard r == 0 else {
            close(life[1])
            throw TestSetupError("posix_spawn tether.sh \(argv[0]): \(r)")
        }
        tether = pid
        lifeline = life[1]
        // Read until `count` lines or end of file, waiting at most `seconds`.
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(seconds) * 1000))
        while text.filter({ $0 == UInt8(ascii: "\n") }).count < count, ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: out[0], events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(out[0], $0.baseAddress, $0.count) }
            if n > 0 { text += buffer[0..<n] } else if n == 0 || errno != EINTR { break }
        }
        lines = Array(String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init).prefix(count))
        guard lines.count == count else {
            stop()
            throw TestSetupError("\(argv.joined(separator: " ")) printed \(lines.count) of \(count) lines: \(lines)")
        }
    }

    /// Stops the group (SIGTERM) and waits for the tether, which waits for the command. Idempotent.
    func stop() {
        guard lifeline >= 0 else { return }
        close(lifeline)
        lifeline = -1
        var status: Int32 = 0
        while waitpid(tether, &status, 0) < 0 && errno == EINTR {}
    }

    deinit { stop() }
}

/// pipe(2) with both ends close-on-exec (Glibc's module has no pipe2; the tests spawn from one thread).
private func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}
