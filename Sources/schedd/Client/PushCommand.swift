import ScheddBus
import SchedCalendar
import ScheddService
import Scheduler
import SystemZones

/// How many NDJSON pushes go in one PushBatch call at most: large enough to amortize the group commit.
private let batchSize = 1000

/// How many bytes of pushes go in one PushBatch call at most (8 MiB): a batch is sent before the push
/// that would cross it, so the request stays far below the 32 MiB message limit of a stock bus (CONTRACT
/// §9) whatever the pushes weigh — 1,000 pushes of 60 KiB are about 60 MiB, eight calls here. Each push
/// also costs its string header in the message (`PushBatch.messageOverhead`).
let batchBytes = 8 << 20

/// `schedd push [FILE|-]`: one push, or NDJSON (one push per non-empty line), one answer each.
///
/// The input is streamed (`PushInput`): an input of at most 64 KiB that parses as one JSON value is
/// one push; otherwise lines are read and sent in batches of `batchSize`, so memory stays bounded
/// whatever the input's length. A line that is too large or not UTF-8 is rejected here, in order
/// with the daemon's answers to the others, with the message the daemon would give.
func runPushCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let input = try PushInput(path: args.positionals.first ?? "-")
    let whole = try input.wholeInput(ifAtMost: PushDecoder.maxPushBytes)
    let client = try SchedulerClient(args)
    // Human answers name `next` in the daemon's device zone, which only the daemon knows.
    let zone = args.json ? nil : (try? DaemonClock.read(client))?.zone
    if let whole, (try? JSONValue.parse(whole)) != nil, let text = String(validating: whole, as: UTF8.self) {
        warnAboutUnknownMembers(text, line: nil)
        do {
            let answer = try client.call("Push", { m throws(BusError) in try m.append(text) },
                                         read: { m throws(BusError) in try m.readString() })
            printOutcomes(try SchedulerClient.json(answer, "Push"), args: args, zone: zone)
            return .success
        } catch where error.code == .rejected {
            printRejection(error.message, line: nil, args: args)
            return .rejected
        }
    }
    if whole == nil, isStartOfOneValue(input.buffered) {
        printRejection(PushDecoder.tooLarge.message, line: nil, args: args)
        return .rejected
    }
    var batch = PushBatch(client: client, args: args, zone: zone)
    var any = false
    while let line = try input.nextLine() {
        any = true
        switch line {
        case .tooLarge(let number):
            batch.add(.rejected(PushDecoder.tooLarge.message), line: number)
        case .push(let number, let bytes):
            if let text = String(validating: bytes, as: UTF8.self) {
                warnAboutUnknownMembers(text, line: number)
                if !batch.fits(text) { try batch.send() }
                batch.add(.text(text), line: number)
            } else {
                batch.add(.rejected(invalidUTF8Message(bytes)), line: number)
            }
        }
        if batch.count == batchSize { try batch.send() }
    }
    if !any { throw .rejected("push: \(input.name) holds no push") }
    try batch.send()
    return batch.rejected ? .rejected : .success
}

/// Whether `prefix`, the first 64 KiB + 1 of a longer input, starts one JSON value written over
/// several lines (a pretty-printed push): it parses without error up to its cut and its first
/// non-empty line is not a value of its own. Such an input is one push, too large, not NDJSON.
private func isStartOfOneValue(_ prefix: ArraySlice<UInt8>) -> Bool {
    let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = prefix.firstIndex(where: { !isBlank($0) }),
          let newline = prefix[first...].firstIndex(of: 0x0A) else { return false }
    do throws(JSONError) {
        _ = try JSONValue.parse(prefix)
        return false
    } catch {
        // The cut may fall inside a literal, a UTF-8 sequence or an escape: an error in the last
        // few bytes is the cut's; anything earlier is a real syntax error, so lines are pushes.
        switch error.kind {
        case .unexpectedEnd, .invalidUTF8, .invalidEscape, .loneSurrogate:
            let offset = prefix.startIndex + error.offset
            return offset > newline && offset >= prefix.endIndex - 12
        default:
            return false
        }
    }
}

/// Why `bytes` (not well-formed UTF-8) are not a push: the decoder's own message, which the JSON
/// parser gives as `push: invalid JSON at byte N: invalid UTF-8` (or an earlier syntax error).
private func invalidUTF8Message(_ bytes: [UInt8]) -> String {
    do throws(PushError) {
        _ = try PushDecoder.decode(bytes, zones: ZoneDatabase.shared)
    } catch {
        return error.message
    }
    return PushError("push", "invalid UTF-8 at byte \(firstInvalidUTF8Offset(bytes) ?? 0)").message
}

/// NDJSON lines collected for one PushBatch call, with those rejected before sending, in input order.
private struct PushBatch {
    enum Entry { case text(String), rejected(String) }
    let client: SchedulerClient
    let args: ParsedArguments
    let zone: TimeZoneRules?
    private var entries: [(entry: Entry, line: Int)] = []
    /// Whether any push so far was rejected.
    private(set) var rejected = false

    init(client: SchedulerClient, args: ParsedArguments, zone: TimeZoneRules?) {
        self.client = client; self.args = args; self.zone = zone
    }

    /// Bytes the collected texts take in the PushBatch message.
    private var bytes = 0

    /// A string in a D-Bus message: its 4-byte length, the bytes, a NUL, and up to 3 bytes of padding.
    static let messageOverhead = 8

    var count: Int { entries.count }

    /// Whether `text` can join this batch without passing `batchBytes` (an empty batch takes anything:
    /// a push is at most 64 KiB).
    func fits(_ text: String) -> Bool { bytes == 0 || bytes + text.utf8.count + Self.messageOverhead <= batchBytes }

    mutating func add(_ entry: Entry, line: Int) {
        if case .text(let text) = entry { bytes += text.utf8.count + Self.messageOverhead }
        entries.append((entry, line))
    }

    /// Sends the collected pushes in one call and prints every answer in input order.
    mutating func send() throws(CommandFailure) {
        let texts = entries.compactMap { if case .text(let t) = $0.entry { t } else { nil } }
        var answers: [String] = []
        if !texts.isEmpty {
            answers = try client.call("PushBatch", timeoutMicroseconds: 600_000_000,
                                      { m throws(BusError) in try m.append(texts) },
                                      read: { m throws(BusError) in try m.readStrings() })
        }
        guard answers.count == texts.count else {
            throw .failure("unexpected reply to PushBatch: \(answers.count) answers for \(texts.count) pushes")
        }
        var next = answers.makeIterator()
        for (entry, line) in entries {
            let value: JSONValue
            switch entry {
            case .text: value = try SchedulerClient.json(next.next()!, "PushBatch")
            case .rejected(let message): value = .object([JSONMember("error", .string(message))])
            }
            if let error = value[member: "error"]?.stringValue {
                rejected = true
                printRejection(error, line: line, args: args)
            } else {
                printOutcomes(value, args: args, zone: zone)
            }
        }
        entries.removeAll(keepingCapacity: true)
        bytes = 0
    }
}

/// Warns on stderr about members schedd ignores (CONTRACT §1: forward compatibility).
private func warnAboutUnknownMembers(_ text: String, line: Int?) {
    guard let push = try? PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared) else { return }
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
func printOutcomes(_ outcomes: JSONValue, args: ParsedArguments, zone: TimeZoneRules?) {
    for outcome in outcomes.arrayValue ?? [] {
        if args.json {
            Console.out(outcome.serialized())
            continue
        }
        let id = (outcome[member: "id"] ?? outcome[member: "run"])?.stringValue ?? "?"
        let status = outcome[member: "status"]?.stringValue ?? "?"
        var line = "\(id): \(status)"
        if let next = outcome[member: "next"]?.stringValue, let instant = instant(fromTimeText: next, in: .utc) {
            line += ", next \(zone.map { systemdTimestamp(instant, in: $0) } ?? next)"
        }
        if let cancelled = outcome[member: "cancelled"]?.arrayValue, !cancelled.isEmpty {
            line += ", cancelled " + cancelled.compactMap(\.stringValue).joined(separator: ", ")
        }
        if let closed = outcome[member: "closed"]?.arrayValue, !closed.isEmpty {
            line += ", closed " + closed.compactMap(\.stringValue).joined(separator: ", ")
        }
        Console.out(line)
    }
}
