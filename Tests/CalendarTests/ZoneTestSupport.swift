import Foundation
import XCTest

/// Runs `path` with `arguments`, returns its exit status and standard output.
/// Skips the test when the executable is missing (CI installs it).
func runReference(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
    guard FileManager.default.isExecutableFile(atPath: path) else { throw XCTSkip("\(path) is not installed") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Zones whose rules break naive readers, used by the differential tests.
let differentialZones = [
    "America/New_York", "Europe/Dublin", "Australia/Lord_Howe", "Pacific/Apia", "America/Havana",
    "America/Santiago", "Asia/Kolkata", "Europe/London", "Europe/Berlin", "Australia/Sydney",
    "America/St_Johns", "Antarctica/Troll", "America/Sao_Paulo", "Africa/Casablanca", "Asia/Tehran",
    "Europe/Moscow", "Pacific/Chatham", "America/Nuuk", "Asia/Gaza", "Asia/Jerusalem", "Pacific/Kiritimati",
]
