import ScheddClientCore
import ScheddBus
import SchedCalendar
import ScheddService
import Scheduler
import SystemZones

/// How many NDJSON pushes go in one PushBatch call at most: large enough to amortize the group commit.
private let batchSize = 1000

/// How many PushBatch calls are in flight at most: the daemon holds the next batches while it commits
/// one, and decodes them meanwhile on its decoding thread (`PushBatchDecoder`); with two it would read the
/// next only after the commit. Five, not three (issue 35): each answer waits for its group's sync, and
/// with three the daemon's loop thread sat idle ~20 % of a 1M one-shot load (busy 15.9 of 20.2 s; with
/// five 17.1 of 18.7 s, the load 8–9 % faster, twice alternated). The daemon holds at most five requests
/// of at most `batchBytes` each from this client.
private let callsInFlight = 5

/// How many bytes of pushes go in one PushBatch call at most (8 MiB): a batch is sent before the push
/// that would cross it, so the request stays far below the 32 MiB message limit of a stock bus (CONTRACT
/// §9) whatever the pushes weigh — 1,000 pushes of 60 KiB are about 60 MiB, eight calls here. Each push
/// also costs its string header in the message (`PushBatch.messageOverhead`).
let batchBytes = 8 << 20

/// `schedd push [FILE|-]`: one push, or NDJSON (one push per non-empty line), one answer each.
///
/// Which it is (schedd-push(5), docs/cli.md): when the first non-blank line ends inside a JSON value
/// (`{`), the input is one JSON document — a push written over several lines — of at most 64 KiB;
/// otherwise it is NDJSON. In a document  a syntax error is reported by line and column (a trailing comma at
/// the comma). NDJSON is streamed (`PushInput`) and sent in batches of `batchSize`, so memory
/// stays bounded whatever the input's length; a line that is too large or not UTF-8 is rejected
/// here, in order with the daemon's answers to the others, with the message the daemon would give.
func runPushCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let input = try PushInput(path: args.positionals.first ?? "-")
    if input.isTerminal {
        Console.err("schedd: reading pushes from standard input (a terminal): paste one push or NDJSON lines, then "
                    + "Ctrl-D; or give a file: schedd push FILE")
    }
    let whole = try input.wholeInput(ifAtMost: PushDecoder.maxPushBytes)
    let session = try DaemonSession(args)
    // Human answers name `next` in the daemon's device zone, which only the daemon knows: its ClockShow
    // is sent now and travels with the connection's Hello and the Push (one round trip for all three).
    let clock = args.json ? nil : DaemonClock.request(session)
    // One line holding one push is one push, too (answered without a line number).
    let onePush = whole.map { bytes in (try? JSONValue.parse(bytes)) != nil } ?? false
    if onePush || firstLineStartsADocument(input.buffered) {
        // The line the push starts on, which its rejections name.
        let startLine = 1 + input.buffered.prefix(while: isBlank).filter { $0 == 0x0A }.count
        guard let whole else {
            printRejection(PushDecoder.tooLarge.message, at: "\(input.name), line \(startLine)", args: args)
            return .rejected
        }
        do throws(JSONError) {
            _ = try JSONValue.parse(whole[...])
        } catch {
            printRejection("\(input.name), \(documentPosition(of: error, in: whole))", at: nil, args: args)
            return .rejected
        }
        let text = String(decoding: whole, as: UTF8.self)
        do {
            let push = try session.sendString("Push", { m throws(BusError) in try m.append(text) })
            session.flush()
            warnAboutUnknownMembers(text, line: nil)  // while the daemon commits
            let answer = try session.wait(push)
            printOutcomes(try DaemonSession.json(answer, "Push"), args: args, zone: clock?.wait()?.zone)
            return .success
        } catch where error.code == .rejected {
            printRejection(error.message, at: "\(input.name), line \(startLine)", args: args, push: text)
            return .rejected
        }
    }
    var batch = PushBatch(client: session, args: args, zone: clock?.wait()?.zone, inputName: input.name)
    var check = UnknownMemberCheck()
    var any = false
    while let line = try input.nextLine() {
        any = true
        switch line {
        case .tooLarge(let number):
            batch.add(.rejected(PushDecoder.tooLarge.message), line: number)
        case .push(let number, let bytes, let indent):
            if let text = String(validating: bytes, as: UTF8.self) {
                let warnings = check.warnings(text, bytes: bytes, line: number)
                if !batch.fits(text) { try batch.send() }
                batch.add(.text(text, indent: indent), line: number, warnings: warnings)
            } else {
                batch.add(.rejected(invalidUTF8Message(bytes)), line: number)
            }
        }
        if batch.count == batchSize { try batch.send() }
    }
    if !any { throw .rejected("push: \(input.name) holds no push") }
    try batch.send()
    try batch.finish()
    return batch.rejected ? .rejected : .success
}

private func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }

/// Whether the first non-blank line of `prefix` (the first 64 KiB + 1 of the input) ends inside a
/// JSON value — `{` or `{"bk": {`, a push written over several lines: then the input is one JSON
/// document. A line that is a value of its own, or broken in any other way, makes the input NDJSON
/// (the line is rejected by itself). A first line longer than the prefix is a line of its own.
private func firstLineStartsADocument(_ prefix: ArraySlice<UInt8>) -> Bool {
    guard let first = prefix.firstIndex(where: { !isBlank($0) }),
          let newline = prefix[first...].firstIndex(of: 0x0A) else { return false }
    do throws(JSONError) {
        _ = try JSONValue.parse(prefix[first..<newline])
        return false
    } catch {
        return error.kind == .unexpectedEnd
    }
}

/// Where a JSON document broke, for a person: `line 6, column 18: a comma before '}' …` (columns count
/// characters from 1). A `}` or `]` right after a comma is reported at the comma.
func documentPosition(of error: JSONError, in bytes: [UInt8]) -> String {
    var offset = min(error.offset, bytes.count)
    var reason = error.reason
    if case .unexpectedByte(let b, _) = error.kind, b == 0x7D || b == 0x5D {
        var i = offset - 1
        while i >= 0, isBlank(bytes[i]) { i -= 1 }
        if i >= 0, bytes[i] == 0x2C {
            offset = i
            reason = "a comma before '\(UnicodeScalar(b))': JSON allows none after the last " + (b == 0x7D ? "member" : "element")
        }
    }
    let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
    let line = bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
    return "line \(line), column \(column): \(reason)"
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
///
/// `callsInFlight` calls in flight: `send` sends the collected pushes and returns once the oldest call is
/// answered and printed, so the next lines are read and checked while the daemon decodes and commits (each
/// answer still comes only after its commit, and answers are printed in input order).
private struct PushBatch {
    enum Entry { case text(String, indent: Int), rejected(String) }
    typealias Line = (entry: Entry, line: Int, warnings: [String])
    let client: DaemonSession
    let args: ParsedArguments
    let zone: TimeZoneRules?
    /// How the input is named in rejections (`'pushes.ndjson'`, `standard input`).
    let inputName: String
    private var entries: [Line] = []
    /// Batches sent (or, without a push to send, only collected) and not yet printed, oldest first.
    private var inFlight: [(lines: [Line], pending: PendingCall<[String]>?, count: Int)] = []
    /// Whether any push so far was rejected.
    private(set) var rejected = false

    init(client: DaemonSession, args: ParsedArguments, zone: TimeZoneRules?, inputName: String) {
        self.client = client; self.args = args; self.zone = zone; self.inputName = inputName
    }

    /// Bytes the collected texts take in the PushBatch message.
    private var bytes = 0

    /// A string in a D-Bus message: its 4-byte length, the bytes, a NUL, and up to 3 bytes of padding.
    static let messageOverhead = 8

    var count: Int { entries.count }

    /// Whether `text` can join this batch without passing `batchBytes` (an empty batch takes anything:
    /// a push is at most 64 KiB).
    func fits(_ text: String) -> Bool { bytes == 0 || bytes + text.utf8.count + Self.messageOverhead <= batchBytes }

    mutating func add(_ entry: Entry, line: Int, warnings: [String] = []) {
        if case .text(let text, _) = entry { bytes += text.utf8.count + Self.messageOverhead }
        entries.append((entry, line, warnings))
    }

    /// Sends the collected pushes in one call, then, with `callsInFlight` calls out, waits for the oldest
    /// and prints its answers.
    mutating func send() throws(CommandFailure) {
        let texts = entries.compactMap { if case .text(let t, _) = $0.entry { t } else { nil } }
        var pending: PendingCall<[String]>?
        if !texts.isEmpty {
            pending = try client.sendStrings("PushBatch", timeoutMicroseconds: 600_000_000,
                                             { m throws(BusError) in try m.append(texts) })
        }
        inFlight.append((entries, pending, texts.count))
        entries = []
        bytes = 0
        if inFlight.count >= callsInFlight { try printOldest() }
    }

    /// Waits for every call sent and prints their answers.
    mutating func finish() throws(CommandFailure) {
        while !inFlight.isEmpty { try printOldest() }
    }

    /// Waits for the oldest call in flight and prints every answer of its lines in input order (with the
    /// warnings of each line before its answer).
    private mutating func printOldest() throws(CommandFailure) {
        let (lines, pending, count) = inFlight.removeFirst()
        let answers = try pending.map { p throws(CommandFailure) in try client.wait(p) } ?? []
        guard answers.count == count else {
            throw .failure("unexpected reply to PushBatch: \(answers.count) answers for \(count) pushes")
        }
        var next = answers.makeIterator()
        var output = StdoutLines()
        defer { output.flush() }
        for (entry, line, warnings) in lines {
            for warning in warnings { output.err(warning) }
            let value: JSONValue
            var pushText: String?
            switch entry {
            case .text(let text, let indent):
                pushText = text
                value = try DaemonSession.json(next.next()!, "PushBatch")
                if let error = value[member: "error"]?.stringValue, let column = syntaxColumn(value, in: text, indent: indent) {
                    // --json keeps the daemon's message; the person reads the line and column.
                    rejected = true
                    if args.json { output.out(JSONValue.object([JSONMember("error", .string(error))]).serialized()) }
                    output.err("schedd: push rejected: \(inputName), line \(line), \(column)")
                    continue
                }
            case .rejected(let message): value = .object([JSONMember("error", .string(message))])
            }
            if let error = value[member: "error"]?.stringValue {
                rejected = true
                printRejection(error, at: "\(inputName), line \(line)", args: args, push: pushText, into: &output)
            } else {
                printOutcomes(value, args: args, zone: zone, into: &output)
            }
        }
    }
}

/// Warns on stderr about members schedd ignores (CONTRACT §1: forward compatibility).
private func warnAboutUnknownMembers(_ text: String, line: Int?) {
    for warning in unknownMemberWarnings(text, line: line) { Console.err(warning) }
}

/// The unknown-member warnings of NDJSON lines, without decoding a line shaped like the last one found
/// to have none: a bulk load's lines differ in values, not in members, and the decode (the daemon
/// decodes each line anyway) was half of the CLI's CPU time (BENCHMARKS.md §1b).
///
/// Which members are unknown depends only on the objects' keys and how they nest (`PushObject` checks
/// each key against the known names of its path), so two lines with the same `shape` — the same keys
/// in the same order and nesting, the same kinds of values — have the same unknown members, or both
/// fail to decode (then the daemon rejects them and no warning is due either).
struct UnknownMemberCheck {
    private var quietShape: [UInt8]?

    mutating func warnings(_ text: String, bytes: [UInt8], line: Int?) -> [String] {
        let shape = Self.shape(bytes)
        if let shape, shape == quietShape { return [] }
        let warnings = unknownMemberWarnings(text, line: line)
        if warnings.isEmpty, let shape { quietShape = shape }
        return warnings
    }

    /// The keys (raw, with their quotes) and the structure of a JSON text: `{ } [ ] , :` as they come,
    /// `s` for a string value and `n` for any other scalar; values themselves are dropped. nil when a
    /// string does not end (the decoder reports that line).
    static func shape(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            switch b {
            case 0x22:  // a string: a key when ':' follows
                var j = i + 1
                while j < n && bytes[j] != 0x22 { j += bytes[j] == 0x5C ? 2 : 1 }
                guard j < n else { return nil }
                var k = j + 1
                while k < n, bytes[k] == 0x20 || bytes[k] == 0x09 || bytes[k] == 0x0D || bytes[k] == 0x0A { k += 1 }
                if k < n && bytes[k] == 0x3A { out.append(contentsOf: bytes[i...j]) } else { out.append(0x73) }
                i = j + 1
            case 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A:
                out.append(b)
                i += 1
            case 0x20, 0x09, 0x0D, 0x0A:
                i += 1
            default:  // a number or a literal: one `n`
                out.append(0x6E)
                while i < n, ![0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x22, 0x20, 0x09, 0x0D, 0x0A].contains(bytes[i]) { i += 1 }
            }
        }
        return out
    }
}

/// The warnings about members schedd ignores in one push (none for a push the daemon will reject).
private func unknownMemberWarnings(_ text: String, line: Int?) -> [String] {
    guard let push = try? PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared) else { return [] }
    let at = line.map { "line \($0): " } ?? ""
    return push.unknownMembers.map { member in "schedd: warning: \(at)\(member): unknown member, ignored\(memberHint(member))" }
}

private func printRejection(_ message: String, at location: String?, args: ParsedArguments, push: String? = nil) {
    var output = StdoutLines()
    printRejection(message, at: location, args: args, push: push, into: &output)
    output.flush()
}

/// Prints a rejected push: `{"error": message}` under `--json`; on stderr `schedd: push rejected:
/// LOCATION: message` (`'pushes.ndjson', line 3` — every rejection names the input and the line), then
/// each member of `push` that schedd does not read, with its nearest known name
/// (`schedd: bk.local.titel: unknown member (did you mean title?)`): a misspelt member is often why a
/// required one is missing.
private func printRejection(_ message: String, at location: String?, args: ParsedArguments, push: String? = nil,
                            into output: inout StdoutLines) {
    if args.json {
        output.out(JSONValue.object([JSONMember("error", .string(message))]).serialized())
    }
    output.err("schedd: push rejected: \(location.map { $0 + ": " } ?? "")\(message)")
    for hint in push.map(unknownMemberHints) ?? [] { output.err("schedd: " + hint) }
}

/// A daemon's syntax error for an NDJSON line (the entry's answer `{"error": …, "position": N, "syntax":
/// REASON}`) as the line's column (`column 7: invalid JSON: REASON`, characters from 1, the dropped
/// indent counted); nil for other errors (no `position`).
private func syntaxColumn(_ answer: JSONValue, in text: String, indent: Int) -> String? {
    guard let position = answer[member: "position"].flatMap({ $0.numberText.flatMap { Int($0) } }), position >= 0,
          let reason = answer[member: "syntax"]?.stringValue else { return nil }
    let bytes = Array(text.utf8)
    let column = indent + String(decoding: bytes[..<min(position, bytes.count)], as: UTF8.self).count + 1
    return "column \(column): invalid JSON: " + reason
}

/// Prints each outcome of one push: one JSON object per line, or a human line.
func printOutcomes(_ outcomes: JSONValue, args: ParsedArguments, zone: TimeZoneRules?) {
    var output = StdoutLines()
    printOutcomes(outcomes, args: args, zone: zone, into: &output)
    output.flush()
}

/// `note` ends each human line in parentheses (`add --in 5`: `(in 5 s)`); JSON lines are left as they are.
func printOutcomes(_ outcomes: JSONValue, args: ParsedArguments, zone: TimeZoneRules?, into output: inout StdoutLines,
                   note: String? = nil) {
    for outcome in outcomes.arrayValue ?? [] {
        if args.json {
            output.out(outcome.serialized())
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
        if let note { line += " (\(note))" }
        output.out(line)
    }
}
