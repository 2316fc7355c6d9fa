import SeededRandomness
import Foundation
import XCTest
@_exported import TestPrerequisites
import SchedCalendar

/// Runs `path` with `arguments`, returns its exit status and standard output.
/// Skips the test when the executable is missing (fails it under `SCHEDD_REQUIRE_REFERENCES=1`).
func runReference(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
    guard FileManager.default.isExecutableFile(atPath: path) else { throw missingReference("\(path) is not installed") }
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

/// A random POSIX TZ rule whose two changes fall in different months of 2…11, so that no change
/// crosses a new year (where glibc evaluates each UTC year on its own). Offsets −12 h…+14 h in
/// 15-minute steps; DST +1 h, +30 min, +2 h or −1 h; change times −3 h…27 h.
///
/// `pythonSafe` keeps to what Python 3.11's zoneinfo reads correctly: `Mm.w.d` dates only (it is
/// off by one day for `Jn` and `n`) and negative times in whole hours (it reads `/-2:30` as −1:30).
func randomPosixRule(pythonSafe: Bool, using rng: inout SplitMix64) -> String {
    func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    func hms(_ seconds: Int) -> String {
        let a = abs(seconds)
        return (seconds < 0 ? "-" : "") + "\(a / 3600)" + (a % 3600 == 0 ? "" : ":\(pad(a / 60 % 60))")
    }
    func date(month: Int) -> String {
        let dayOfYear = Int(daysFromCivil(2001, month, Int.random(in: 1...28, using: &rng)) - daysFromCivil(2001, 1, 1))
        switch pythonSafe ? 2 : Int.random(in: 0..<3, using: &rng) {
        case 0: return "J\(dayOfYear + 1)"
        case 1: return "\(dayOfYear)"
        default: return "M\(month).\(Int.random(in: 1...5, using: &rng)).\(Int.random(in: 0...6, using: &rng))"
        }
    }
    func time() -> String {
        let hours = Int.random(in: -3...27, using: &rng)
        let minutes = hours < 0 && pythonSafe ? 0 : [0, 1800, 2700].randomElement(using: &rng)!
        return "/" + hms(hours * 3600 + (hours < 0 ? -minutes : minutes))
    }
    let std = Int.random(in: -48...56, using: &rng) * 900
    let dst = std + [3600, 1800, 7200, -3600].randomElement(using: &rng)!
    let startMonth = Int.random(in: 2...11, using: &rng)
    var endMonth = startMonth
    while abs(endMonth - startMonth) < 2 { endMonth = Int.random(in: 2...11, using: &rng) }
    let names = Bool.random(using: &rng) ? ("AAA", "BBB") : ("<STD>", "<DST>")
    // POSIX offsets count hours west of UTC.
    return names.0 + hms(-std) + names.1 + hms(-dst) + "," + date(month: startMonth) + time() + ","
        + date(month: endMonth) + time()
}
