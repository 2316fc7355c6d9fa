import Foundation
import XCTest

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
            throw XCTSkip("the schedd executable was not built next to the tests")
        }
        return found.path
    }

    /// Runs `driver args…` with the schedd binary; returns (exit status, combined output).
    static func runDriver(_ driver: String, _ args: [String]) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("\(python) is missing") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [supportDir.appendingPathComponent(driver).path, "--schedd", try scheddBinary()] + args
        let outPath = NSTemporaryDirectory() + "schedd-torture-\(UUID().uuidString).out"
        FileManager.default.createFile(atPath: outPath, contents: nil)
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

    private final class Marker {}
}
