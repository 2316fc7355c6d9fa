import Foundation
import XCTest

/// A private dbus-daemon for one test: stock limits (Tests/Support/bus/test-bus.conf), `--nofork` under
/// Tests/Support/tether.sh, so it ends with the test process even when the test crashes. A missing
/// dbus-daemon is `missingReference` (a failure in CI); a daemon that prints no address fails the test.
public final class PrivateTestBus {
    /// The bus's address (`unix:path=…`), for `BusConnection.open(.address(_:))`.
    public let address: String
    private let process: Process
    private let lifeline: Pipe

    public init() throws {
        try requirePrerequisite(FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"), "dbus-daemon is not installed")
        let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support")
        let process = Process(), life = Pipe(), out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [support.appendingPathComponent("tether.sh").path, "/usr/bin/dbus-daemon",
                             "--config-file=" + support.appendingPathComponent("bus/test-bus.conf").path,
                             "--nofork", "--nopidfile", "--print-address=1"]
        process.standardInput = life
        process.standardOutput = out
        try process.run()
        self.process = process
        lifeline = life
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // end of file: the bus did not start
            text += chunk
        }
        address = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard address.hasPrefix("unix:") else {
            stop()
            throw PrivateTestBusError(description: "dbus-daemon printed no address: \(address)")
        }
    }

    /// Ends the bus (the tether stops it when its stdin closes) and waits for it. Idempotent.
    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// The private bus did not start (a failure, never a skip).
public struct PrivateTestBusError: Error, CustomStringConvertible {
    public var description: String
}
