import SchedCalendar
import Scheduler

/// How many NDJSON pushes go in one PushBatch call: large enough to amortize the group commit,
/// small enough that a batch of 64 KiB pushes stays far below D-Bus's 128 MiB message limit.
private let batchSize = 1000

/// `schedd push [FILE|-]`: one push, or NDJSON (one push per non-empty line), one answer each.
func runPushCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let path = args.positionals.first ?? "-"
    let bytes: [UInt8]
    switch Console.readAll(path: path) {
    case .success(let data): bytes = data
    case .failure(let failure): throw failure
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let client = try SchedulerClient(target: BusTarget(option: args.value("bus")))
    let zone = try? Zones.device()
    if case .success = parseJSON(text) {
        warnAboutUnknownMembers(text, line: nil)
        do {
            let answer = try client.call("Push", { m throws(BusFailure) in try m.append(text) },
                                         read: { m throws(BusFailure) in try m.readString() })
            printOutcomes(try SchedulerClient.json(answer, "Push"), args: args, zone: zone)
            return .success
        } catch where error.code == .rejected {
            printRejection(error.message, line: nil, args: args)
            return .rejected
        }
    }
    let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        .map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    if lines.isEmpty { throw .rejected("push: \(path == "-" ? "standard input" : "'\(path)'") holds no push") }
    var rejected = false
    var lineNumber = 0
    for start in stride(from: 0, to: lines.count, by: batchSize) {
        let chunk = Array(lines[start..<min(start + batchSize, lines.count)])
        for line in chunk {
            lineNumber += 1
            warnAboutUnknownMembers(line, line: lineNumber)
        }
        let answers = try client.call("PushBatch", timeoutMicroseconds: 600_000_000,
                                      { m throws(BusFailure) in try m.append(chunk) },
                                      read: { m throws(BusFailure) in try m.readStrings() })
        for (offset, answer) in answers.enumerated() {
            let value = try SchedulerClient.json(answer, "PushBatch")
            if let error = value[member: "error"]?.stringValue {
                rejected = true
                printRejection(error, line: start + offset + 1, args: args)
            } else {
                printOutcomes(value, args: args, zone: zone)
            }
        }
    }
    return rejected ? .rejected : .success
}

/// Warns on stderr about members schedd ignores (CONTRACT §1: forward compatibility).
private func warnAboutUnknownMembers(_ text: String, line: Int?) {
    guard case .success(let push) = decodePush(Array(text.utf8)) else { return }
    for member in push.unknownMembers {
        Console.err("schedd: warning: \(line.map { "line \($0): " } ?? "")\(member): unknown member, ignored")
    }
}

private func printRejection(_ message: String, line: Int?, args: ParsedArguments) {
    if args.json {
        Console.out(JSONValue.object([JSONMember("error", .string(message))]).serialized())
    }
    Console.err("schedd: \(line.map { "line \($0): " } ?? "")push rejected: \(message)")
}

/// Prints each outcome of one push: one JSON object per line, or a human line.
private func printOutcomes(_ outcomes: JSONValue, args: ParsedArguments, zone: TimeZoneRules?) {
    for outcome in outcomes.arrayValue ?? [] {
        if args.json {
            Console.out(outcome.serialized())
            continue
        }
        let id = outcome[member: "id"]?.stringValue ?? "?"
        let status = outcome[member: "status"]?.stringValue ?? "?"
        var line = "\(id): \(status)"
        if let next = outcome[member: "next"]?.stringValue, let instant = instant(fromTimeText: next, in: .utc) {
            line += ", next \(zone.map { systemdTimestamp(instant, in: $0) } ?? next)"
        }
        if let cancelled = outcome[member: "cancelled"]?.arrayValue, !cancelled.isEmpty {
            line += ", cancelled " + cancelled.compactMap(\.stringValue).joined(separator: ", ")
        }
        Console.out(line)
    }
}

extension Substring {
    /// The text without leading and trailing spaces, tabs and carriage returns.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
