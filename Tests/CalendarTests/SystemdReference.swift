import Foundation
import XCTest

/// Runs a reference tool of the differential tests (systemd-analyze, faketime): CI installs them
/// (scripts/install-deps.sh), so a missing one fails the test instead of skipping it.
struct ReferenceRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> ReferenceRun {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw RunnerError("\(path) is not installed (scripts/install-deps.sh installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SYSTEMD_COLORS"] = "0"
        environment["SYSTEMD_PAGER"] = "cat"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently: either may fill while the other is drained.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ReferenceRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                            stderr: String(decoding: errData, as: UTF8.self))
    }
}
