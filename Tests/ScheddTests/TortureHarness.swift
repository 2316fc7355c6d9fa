import Foundation
import XCTest
import TestPrerequisites

/// Runs the Python drivers of Tests/Support/torture against the schedd binary built next to this
/// test bundle. The drivers print their figures; a failing check exits 1 with `VIOLATION:` lines.
enum TortureHarness {
    static let supportDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/torture")
    static let python = "/usr/bin/python3"

    /// The `schedd` executable of this build (`.build/<config>/schedd`, beside the test bundle).
    static func scheddBinary() throws -> String {
        var candidates: [URL] = []
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for url in [runner, Bundle.main.bundleURL, Bundle(for: Marker.self).bundleURL] {
            var dir = url.deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("schedd"))
                dir = dir.deletingLastPathComponent()
            }
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw missingReference("the schedd executable was not built next to the tests")
        }
        return found.path
    }

    /// Runs `driver args…` with the schedd binary; returns (exit status, combined output).
    static func runDriver(_ driver: String, _ args: [String]) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw missingReference("\(python) is missing") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [supportDir.appendingPathComponent(driver).path, "--schedd", try scheddBinary()] + args
        let outPath = NSTemporaryDirectory() + "schedd-torture-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        print(output)
        return (process.terminationStatus, output)
    }

    /// The lines of `output` that report a broken check.
    static func violations(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("VIOLATION") || $0.hasPrefix("FAILED") || $0.hasPrefix("HARNESS FAILURE") || $0.hasPrefix("Traceback")
        }
    }

    /// The `  key   value` figure lines a driver prints, by key.
    static func counts(_ output: String) -> [String: String] {
        var counts: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("  ") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard let gap = text.range(of: "  ") else { continue }
            counts[String(text[..<gap.lowerBound])] = text[gap.upperBound...].trimmingCharacters(in: .whitespaces)
        }
        return counts
    }

    private final class Marker {}
}

/// A driver that did not run (a test failure, not a skip).
struct DriverFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs a driver that prints `PASS name` / `FAIL name: why` lines once, on first use, and keeps its
/// verdicts (nil = passed) for the test methods that each assert a group of them.
final class DriverVerdicts: @unchecked Sendable {
    private let driver: String
    private let arguments: [String]
    private let lock = NSLock()
    private var cached: [String: String?]?

    /// The exit status a driver uses when it cannot run here (not root): the tests skip.
    static let skipStatus: Int32 = 77

    init(driver: String, arguments: [String] = []) {
        self.driver = driver
        self.arguments = arguments
    }

    func results() throws -> [String: String?] {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let (status, output) = try TortureHarness.runDriver(driver, arguments)
        if status == Self.skipStatus { throw missingReference("\(driver): \(output)") }
        var verdicts: [String: String?] = [:]
        for line in output.split(separator: "\n").map(String.init) {
            if line.hasPrefix("PASS ") {
                verdicts[String(line.dropFirst(5))] = .some(nil)
            } else if line.hasPrefix("FAIL "), let colon = line.range(of: ": ") {
                verdicts[String(line[line.index(line.startIndex, offsetBy: 5)..<colon.lowerBound])] =
                    .some(String(line[colon.upperBound...]))
            }
        }
        if verdicts.isEmpty { throw DriverFailure(message: "\(driver) produced no verdicts:\n\(output)") }
        cached = verdicts
        return verdicts
    }

    /// Asserts that every case whose name holds one of `fragments` passed, and that there is one.
    func assertPassed(_ fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let selected = try results().filter { name, _ in fragments.contains { name.contains($0) } }
        XCTAssertFalse(selected.isEmpty, "no case matched \(fragments): the driver did not run them", file: file, line: line)
        for (name, problem) in selected.sorted(by: { $0.key < $1.key }) {
            XCTAssertNil(problem, name, file: file, line: line)
        }
    }
}
