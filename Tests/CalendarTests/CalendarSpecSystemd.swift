import Foundation
import SchedCalendar

/// What `systemd-analyze calendar` said about one expression.
enum SystemdVerdict: Equatable {
    /// Parsed: its normalized form and its elapses (whole seconds, in UTC).
    case accepted(normalized: String, elapses: [Int64])
    case rejected
    /// systemd 252 failed while computing an elapse ("Infinite loop in calendar calculation").
    case gaveUp
}

/// Runs the reference: `TZ=zone systemd-analyze calendar --base-time=@T --iterations=N SPEC…`.
enum SystemdAnalyze {
    static let path = "/usr/bin/systemd-analyze"

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// One invocation for many specs (distinct, without quotes); one verdict per spec, in order.
    static func calendar(_ specs: [String], zone: String, baseTime: Int64, iterations: Int) throws -> [SystemdVerdict] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["calendar", "--base-time=@\(baseTime)", "--iterations=\(iterations)", "--"] + specs
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = zone
        environment["SYSTEMD_COLORS"] = "0"
        environment["SYSTEMD_PAGER"] = "cat"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // stderr carries a line or two per failing spec: far below a pipe's capacity, so reading
        // stdout to the end first cannot deadlock.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stdout = String(decoding: outData, as: UTF8.self)
        let stderr = String(decoding: errData, as: UTF8.self)

        var rejected = Set<String>(), gaveUp = Set<String>()
        for line in stderr.split(separator: "\n") {
            if let spec = quoted(line, after: "Failed to parse calendar specification '") { rejected.insert(spec) }
            if let spec = quoted(line, after: "Failed to determine next elapse for '") { gaveUp.insert(spec) }
        }
        let blocks = stdout.components(separatedBy: "\n\n").map { $0.split(separator: "\n").map(String.init) }
            .filter { block in block.contains { $0.contains("Normalized form:") } }
        var verdicts: [SystemdVerdict] = []
        var nextBlock = 0
        for spec in specs {
            if rejected.contains(spec) { verdicts.append(.rejected); continue }
            if gaveUp.contains(spec) { verdicts.append(.gaveUp); continue }
            guard nextBlock < blocks.count else { throw RunnerError("no output block for '\(spec)'") }
            verdicts.append(try parseBlock(blocks[nextBlock]))
            nextBlock += 1
        }
        return verdicts
    }

    private static func quoted(_ line: Substring, after prefix: String) -> String? {
        guard let r = line.range(of: prefix) else { return nil }
        let rest = line[r.upperBound...]
        guard let end = rest.range(of: "': ", options: .backwards) else { return nil }
        return String(rest[..<end.lowerBound])
    }

    private static func parseBlock(_ lines: [String]) throws -> SystemdVerdict {
        var normalized = ""
        var elapses: [Int64] = []
        var pendingLocal: Int64?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Normalized form: ") {
                normalized = String(trimmed.dropFirst("Normalized form: ".count))
            } else if trimmed.hasPrefix("Next elapse: ") || trimmed.hasPrefix("Iter. #") {
                if let local = pendingLocal { elapses.append(local) }
                pendingLocal = nil
                if trimmed.hasSuffix("never") { continue }
                // Without a "(in UTC)" line (TZ is UTC) this line itself is the UTC time.
                pendingLocal = try parseTimestamp(trimmed)
            } else if trimmed.hasPrefix("(in UTC): ") {
                elapses.append(try parseTimestamp(trimmed))
                pendingLocal = nil
            }
        }
        if let local = pendingLocal { elapses.append(local) }
        return .accepted(normalized: normalized, elapses: elapses)
    }

    /// `… Thu 2025-11-06 05:00:00 UTC` → epoch seconds (only meaningful for UTC lines).
    private static func parseTimestamp(_ line: String) throws -> Int64 {
        let words = line.split(separator: " ")
        guard let dateIndex = words.firstIndex(where: { $0.count == 10 && $0.dropFirst(4).first == "-" }),
              dateIndex + 1 < words.count else { throw RunnerError("no timestamp in '\(line)'") }
        let d = words[dateIndex].split(separator: "-").compactMap { Int($0) }
        let t = words[dateIndex + 1].split(separator: ":").compactMap { Int($0) }
        guard d.count == 3, t.count == 3 else { throw RunnerError("bad timestamp in '\(line)'") }
        return CivilDateTime(year: d[0], month: d[1], day: d[2], hour: t[0], minute: t[1], second: t[2]).localSeconds
    }

    /// Instants (epoch seconds) of the zone's transitions between `from` and `to`, from `zdump -v`.
    static func transitions(of zone: String, from: Int, to: Int) throws -> [Int64] {
        // zdump comes with libc-bin; without it the test falls back to random base times (and fails
        // under SCHEDD_REQUIRE_REFERENCES=1).
        guard let zdump = ["/usr/sbin/zdump", "/usr/bin/zdump"].first(where: FileManager.default.isExecutableFile)
        else {
            if referencesRequired { throw missingReference("zdump is not installed") }
            return []
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zdump)
        process.arguments = ["-v", "-c", "\(from),\(to)", zone]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var result: [Int64] = []
        // "America/New_York  Sun Mar  8 07:00:00 2026 UT = Sun Mar  8 03:00:00 2026 EDT isdst=1 gmtoff=-14400"
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let w = line.split(separator: " ")
            guard w.count > 6, w[6] == "UT", let month = months.firstIndex(of: String(w[2])),
                  let day = Int(w[3]), let year = Int(w[5]) else { continue }
            let hms = w[4].split(separator: ":").compactMap { Int($0) }
            guard hms.count == 3 else { continue }
            let t = CivilDateTime(year: year, month: month + 1, day: day, hour: hms[0], minute: hms[1], second: hms[2])
            // zdump prints each transition as the second before it and the second it happens.
            if hms[2] == 0 { result.append(t.localSeconds) }
        }
        return result
    }
}

struct RunnerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
