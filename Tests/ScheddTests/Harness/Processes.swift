import Foundation
import Glibc

/// Where the built binaries are: next to the test bundle (`.build/debug`).
enum Build {
    static var directory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }
    static var schedd: String { directory.appendingPathComponent("schedd").path }
    /// Tests/Support/bus/test-bus.conf in the source tree.
    static var busConfig: String { supportFile("bus/test-bus.conf") }
    /// A file of the source tree, by its path from the package root (`Sources/CSchedBus/vtable.c`).
    static func sourceFile(_ relativePath: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(relativePath).path
    }
    /// A file under Tests/Support in the source tree.
    static func supportFile(_ relativePath: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support/" + relativePath).path
    }
}

/// The result of running a command to completion.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Non-empty stdout lines.
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs `executable` with `arguments`, feeding `stdin`, and waits for it.
func runProcess(_ executable: String, _ arguments: [String], stdin: String? = nil,
                environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes fully before waiting, so a large output never blocks the child.
    var outData = Data(), errData = Data()
    let group = DispatchGroup()
    let errHandle = err.fileHandleForReading
    nonisolated(unsafe) var errBox = Data()
    group.enter()
    DispatchQueue.global().async {
        errBox = errHandle.readDataToEndOfFile()
        group.leave()
    }
    outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    errData = errBox
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String
    init() throws {
        var template = Array("/tmp/schedd-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.EIO)
        }
        path = String(cString: made)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A private dbus-daemon with Tests/Support/bus/test-bus.conf (or another `config`): no service
/// directories, so nothing is ever auto-activated on it.
final class TestBus {
    let address: String
    let pid: pid_t

    init(config: String = Build.busConfig) throws {
        // The forked bus keeps the inherited descriptors open, so its output goes to a file (a pipe
        // would never reach end-of-file) and the parent's exit says the address is written.
        let outputPath = "/tmp/schedd-test-bus-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { unlink(outputPath) }
        let status = try spawnAndWait(["/usr/bin/dbus-daemon", "--config-file=\(config)", "--fork",
                                       "--nopidfile", "--print-address=1", "--print-pid=1"], stdoutPath: outputPath)
        let lines = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").split(separator: "\n")
        guard status == 0, lines.count >= 2, let pid = pid_t(lines[1]) else {
            throw TestSetupError("dbus-daemon failed to start (status \(status))")
        }
        address = String(lines[0])
        self.pid = pid
    }

    func stop() { kill(pid, SIGTERM) }
}

struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `argv` with stdout to `stdoutPath` (stdin and stderr on /dev/null) and waits for it with
/// posix_spawn + waitpid; returns the exit status.
func spawnAndWait(_ argv: [String], stdoutPath: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    var pid: pid_t = 0
    let r = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
    guard r == 0 else { throw TestSetupError("posix_spawn \(argv[0]): \(r)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xff
}
