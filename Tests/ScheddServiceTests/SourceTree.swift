import Foundation

// Helpers of the ScheddService tests: the source tree, and helper programs for faults caused for real.

/// Files of the source tree, for tests that compare a table with its source of truth.
enum SourceTree {
    /// `relativePath` under the package's root (this file is Tests/ScheddServiceTests/SourceTree.swift).
    static func file(_ relativePath: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(relativePath).path
    }
}

/// What a helper program (mount, dd) did.
struct CommandResult {
    var status: Int32
    var stderr: String
}

/// Runs `executable` with `arguments` to its end (stdout discarded, stderr kept).
func runProcess(_ executable: String, _ arguments: [String]) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let text = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stderr: String(decoding: text, as: UTF8.self))
}

struct TestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
