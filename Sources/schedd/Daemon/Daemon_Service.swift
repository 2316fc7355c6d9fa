import ScheddBus
import Glibc
import SchedCalendar
import Scheduler
import ScheddService

/// A failed method call: the D-Bus error name and the message the CLI prints.
struct ServiceFailure: Error {
    var name: BusErrorName
    var message: String
    init(_ name: BusErrorName, _ message: String) { self.name = name; self.message = message }

    init(_ error: EngineError) {
        switch error.kind {
        case .storage: name = .storage
        case .invalidArgument: name = .invalidArgument
        case .notFound: name = .notFound
        }
        message = error.message
    }

    /// Runs `body`, turning an argument it rejects into `InvalidArgument` with the rejection's message.
    static func rejecting<T>(_ body: () throws(ArgumentRejection) -> T) throws(ServiceFailure) -> T {
        do { return try body() } catch { throw ServiceFailure(.invalidArgument, error.message) }
    }
}

/// The methods of org.schedd.Scheduler1 (README, "D-Bus API"). Each replies only after the engine
/// returned, that is after its effect is durable.
extension Daemon {
    /// The method handler: checks the caller, reads the arguments of `message`, runs the method, replies.
    func handle(_ message: BusMessage) -> BusMethodResult {
        if let callerPolicy, let denial = refusal(of: message, by: callerPolicy) {
            return .failed(name: accessDeniedErrorName, message: denial)
        }
        do throws(ServiceFailure) {
            try dispatch(message)
            if Self.writingMembers.contains(message.member) { storageSucceeded() }
            return .replied
        } catch {
            if error.name == .storage { storageFailed(message.member, error.message, backOff: false) }
            return .failed(name: error.name.rawValue, message: error.message)
        }
    }

    /// Nil when the sender of `message` may call; else the AccessDenied message (logged, rate-limited).
    /// The uid is the bus-verified one, the groups come from the group database (CallerPolicy). A sender
    /// whose credentials cannot be read is refused.
    func refusal(of message: BusMessage, by policy: CallerPolicy) -> String? {
        let denial: String?
        var caller: BusCredentials?
        do {
            let creds = try message.senderCredentials()
            caller = creds
            denial = policy.denial(euid: creds.euid, groups: groupMembership.groups(of: creds.euid))
        } catch {
            denial = "cannot verify the caller (\(error.detail)); only root and group '\(policy.groupName)' may call"
        }
        if let denial, let line = refusalLog.line(for: caller?.euid ?? uid_t.max, "refused \(message.member)"
                                                  + (caller?.pid.map { " from pid \($0)" } ?? "") + ": \(denial)") {
            logger.warning(line)
        }
        return denial
    }

    private func dispatch(_ m: BusMessage) throws(ServiceFailure) {
        do {
            switch m.member {
            case "Push":
                let answer = try push(m.readString())
                try m.reply { r throws(BusError) in try r.append(answer) }
            case "PushBatch":
                let answers = try pushBatch(m.readStrings())
                try m.reply { r throws(BusError) in try r.append(answers) }
            case "Track":
                let event = try m.readString()
                let data = try m.readString()
                let ids = try track(event: event, data: data.isEmpty ? nil : data)
                try m.reply { r throws(BusError) in try r.append(ids) }
            case "Cancel":
                let ids = try engineCall { now throws(EngineError) in try engine.cancel(id: m.readStringOrEmpty(), now: now) }
                announceCancelled(ids, reason: "cli")
                try m.reply { r throws(BusError) in try r.append(ids) }
            case "CancelRun":
                let ids = try engineCall { now throws(EngineError) in try engine.cancel(run: m.readStringOrEmpty(), now: now) }
                announceCancelled(ids, reason: "run")
                try m.reply { r throws(BusError) in try r.append(ids) }
            case "CancelReport", "CancelRunReport":
                let byRun = m.member == "CancelRunReport"
                let name = m.readStringOrEmpty()
                let result = try engineCall { now throws(EngineError) in
                    byRun ? try engine.cancelReporting(run: name, now: now) : try engine.cancelReporting(id: name, now: now)
                }
                announceCancelled(result.cancelled, reason: byRun ? "run" : "cli")
                let text = JSONValue(cancel: result, name: name, byRun: byRun).serialized()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "List":
                let limit = try m.readUInt32(), offset = try m.readUInt32()
                let text = try legacyList(limit: limit, offset: offset)
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ListPage":
                let after = try m.readString(), limit = try m.readUInt32()
                let page = try listPage(after: after, limit: limit)
                try m.reply { r throws(BusError) in try r.append(page.pending); try r.append(page.next) }
            case "History":
                let text = try legacyHistory(limit: m.readUInt32())
                try m.reply { r throws(BusError) in try r.append(text) }
            case "HistoryPage":
                let before = try m.readUInt64(), limit = try m.readUInt32()
                let page = try historyPage(before: before, limit: limit)
                try m.reply { r throws(BusError) in try r.append(page.records); try r.append(page.next) }
            case "ClockShow":
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockSet":
                try clockSet(m.readString())
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockAdvance":
                try clockAdvance(microseconds: m.readUInt64())
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockNext":
                try clockNext()
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockZone":
                try clockZone(m.readString())
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            default:
                throw ServiceFailure(.usage, "unknown method \(m.member)")
            }
        } catch let failure as ServiceFailure {
            throw failure
        } catch let failure as BusError {
            throw ServiceFailure(.usage, failure.detail)
        } catch {
            throw ServiceFailure(.storage, "\(error)")
        }
    }

    /// Runs an engine operation at the clock's `now`, then settles (delivers anything now due and
    /// re-arms the timer).
    func engineCall<T>(_ body: (Instant) throws(EngineError) -> T) throws(ServiceFailure) -> T {
        let result: T
        do {
            result = try body(clock.now)
        } catch {
            throw ServiceFailure(error)
        }
        settle()
        return result
    }

    /// `Push(s push) → s outcomes`: a JSON array of `{"id","status","next"}`.
    private func push(_ text: String) throws(ServiceFailure) -> String { try push(bytes: Array(text.utf8)) }

    /// One push given as bytes (the Push method's text, or a decrypted UnifiedPush message): decoded,
    /// applied, durable; returns the outcome array as JSON.
    func push(bytes: [UInt8]) throws(ServiceFailure) -> String {
        let decoded: Push
        do {
            decoded = try PushDecoder.decode(bytes)
        } catch {
            throw ServiceFailure(.invalidPush, error.message)
        }
        let outcomes = try engineCall { now throws(EngineError) in try engine.push(decoded, now: now) }
        announceCancellations(in: outcomes)
        return JSONValue.array(outcomes.map(JSONValue.init(outcome:))).serialized()
    }

    /// `PushBatch(as pushes) → as answers`: one answer per push, in order — the outcome array, or
    /// `{"error": …}` for a rejected push. Valid pushes go to the engine in one group commit.
    private func pushBatch(_ texts: [String]) throws(ServiceFailure) -> [String] {
        var answers = [String?](repeating: nil, count: texts.count)
        var valid: [(index: Int, push: Push)] = []
        for (i, text) in texts.enumerated() {
            do {
                valid.append((i, try PushDecoder.decode(Array(text.utf8))))
            } catch {
                answers[i] = JSONValue.object([JSONMember("error", .string(error.message))]).serialized()
            }
        }
        let outcomes = try engineCall { now throws(EngineError) in try engine.pushBatch(valid.map(\.push), now: now) }
        for (item, result) in zip(valid, outcomes) {
            announceCancellations(in: result)
            answers[item.index] = JSONValue.array(result.map(JSONValue.init(outcome:))).serialized()
        }
        return answers.map { $0 ?? JSONValue.object([JSONMember("error", .string("not processed"))]).serialized() }
    }

    private func announceCancellations(in outcomes: [PushOutcome]) {
        for outcome in outcomes { if let ids = outcome.cancelled { announceCancelled(ids, reason: "push") } }
    }

    /// `Track(s event, s data) → as cancelled`; `data` is JSON text or empty. The engine checks `event`.
    private func track(event: String, data: String?) throws(ServiceFailure) -> [String] {
        if let data, case .failure(let failure) = parseJSON(data) {
            throw ServiceFailure(.invalidArgument, "data: \(failure.message)")
        }
        let ids = try engineCall { now throws(EngineError) in try engine.track(event: event, dataJSON: data, now: now) }
        announceCancelled(ids, reason: "event:\(event)")
        return ids
    }
}

extension BusMessage {
    /// The next string argument; "" when it cannot be read (sd-bus already checked the signature).
    func readStringOrEmpty() -> String { (try? readString()) ?? "" }
}
