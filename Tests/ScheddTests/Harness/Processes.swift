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
/// directories, so nothing is ever auto-activated on it. It runs in the foreground under a tether
/// (`TetheredProcess`): it stops on `stop()` and when the test process dies, even by SIGKILL.
final class TestBus {
    let address: String
    /// dbus-daemon's own pid (a test may kill the bus with it).
    let pid: pid_t
    private let process: TetheredProcess

    /// A new bus; at `address` (e.g. `unix:path=/tmp/x/bus`) when given, so it can be restarted there.
    init(config: String = Build.busConfig, address: String? = nil) throws {
        process = try TetheredProcess(["/usr/bin/dbus-daemon", "--config-file=\(config)", "--nofork", "--nopidfile",
                                       "--print-address=1", "--print-pid=1"] + (address.map { ["--address=\($0)"] } ?? []),
                                      lines: 2)
        guard let pid = pid_t(process.lines[1]) else {
            process.stop()
            throw TestSetupError("dbus-daemon printed no pid: \(process.lines)")
        }
        self.address = process.lines[0]
        self.pid = pid
    }

    /// Stops the bus (SIGTERM) and waits until it has exited. Idempotent.
    func stop() { process.stop() }
}

struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
