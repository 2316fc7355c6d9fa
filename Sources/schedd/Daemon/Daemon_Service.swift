import ScheddBus
import Glibc
import SchedCalendar
import Scheduler
import ScheddService

/// A failed method call: the D-Bus error name and the message the CLI prints.
struct ServiceFailure: Error {
    var name: BusErrorName
    var message: String
    /// Reply org.freedesktop.DBus.Error.AccessDenied instead of `name` (an app-identity refusal).
    var accessDenied = false
    /// The D-Bus error name of the reply.
    var replyName: String { accessDenied ? accessDeniedErrorName : name.rawValue }
    init(_ name: BusErrorName, _ message: String) { self.name = name; self.message = message }

    init(_ error: EngineError) {
        switch error.kind {
        case .storage: name = .storage
        case .invalidArgument: name = .invalidArgument
        case .notFound: name = .notFound
        case .quotaExceeded: name = .quotaExceeded
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
            if try queueWrite(message) { return .deferred }  // group commit (Daemon_GroupCommit.swift)
            flushWrites()  // every other call sees the writes that came before it
            let result = try dispatch(message)
            if Self.writingMembers.contains(message.member) { storageSucceeded() }
            return result
        } catch {
            if error.name == .storage && !error.accessDenied { storageFailed(message.member, error.message, backOff: false) }
            return .failed(name: error.replyName, message: error.message)
        }
    }

    /// Nil when the sender of `message` may call; else the AccessDenied message (logged, rate-limited).
    /// The uid is the bus-verified one Identity pinned, the groups come from the group database
    /// (CallerPolicy). A sender that was not pinned is refused.
    func refusal(of message: BusMessage, by policy: CallerPolicy) -> String? {
        let denial: String?
        var caller: Identity.Pinned?
        do {
            let pinned = try identity.caller(of: message)
            caller = pinned
            denial = policy.denial(euid: pinned.uid, groups: groupMembership.groups(of: pinned.uid))
        } catch {
            denial = "cannot verify the caller (\(error.message)); only root and group '\(policy.groupName)' may call"
        }
        if let denial, let line = refusalLog.line(for: caller?.uid ?? uid_t.max, "refused \(message.member)"
                                                  + (caller.map { " from pid \($0.pid)" } ?? "") + ": \(denial)") {
            logger.warning(line)
        }
        return denial
    }

    /// The calls that are not queued for the group commit; `.deferred` for a clock call that is answered
    /// once the delivery it started is done.
    private func dispatch(_ m: BusMessage) throws(ServiceFailure) -> BusMethodResult {
        do {
            switch m.member {
            case "CancelReport", "CancelRunReport":
                let app = try callerApp(m).id.rawValue
                let byRun = m.member == "CancelRunReport"
                let name = m.readStringOrEmpty()
                let result = try engineCall { now throws(EngineError) in
                    byRun ? try engine.cancelReporting(run: name, app: app, now: now)
                        : try engine.cancelReporting(id: name, app: app, now: now)
                }
                announceCancelled(result.cancelled, reason: byRun ? "run" : "cli", app: app)
                let text = JSONValue(cancel: result, name: name, byRun: byRun).serialized()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "List":
                let app = try callerApp(m).id.rawValue
                let limit = try m.readUInt32(), offset = try m.readUInt32()
                let text = try legacyList(app: app, limit: limit, offset: offset)
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ListPage", "ListAllAppsPage":
                let caller = try callerApp(m)
                if m.member == "ListAllAppsPage" { try requireUnsandboxed(caller, for: "listing every app's schedules") }
                let app: String? = m.member == "ListAllAppsPage" ? nil : caller.id.rawValue
                let after = try m.readString(), limit = try m.readUInt32()
                let page = try listPage(app: app, after: after, limit: limit)
                try m.reply { r throws(BusError) in try r.append(page.pending); try r.append(page.next) }
            case "History":
                let app = try callerApp(m).id.rawValue
                let text = try legacyHistory(app: app, limit: m.readUInt32())
                try m.reply { r throws(BusError) in try r.append(text) }
            case "HistoryPage":
                let app = try callerApp(m).id.rawValue
                let before = try m.readUInt64(), limit = try m.readUInt32()
                let page = try historyPage(app: app, before: before, limit: limit)
                try m.reply { r throws(BusError) in try r.append(page.records); try r.append(page.next) }
            case "PendingCount", "PendingCountAllApps":
                let caller = try callerApp(m)
                let allApps = m.member == "PendingCountAllApps"
                if allApps { try requireUnsandboxed(caller, for: "counting every app's schedules") }
                let count = try engineCall { _ throws(EngineError) in try engine.pendingCount(app: allApps ? nil : caller.id.rawValue) }
                try m.reply { r throws(BusError) in try r.append(UInt32(clamping: count)) }
            case "DeclareApp":
                let text = try declareApp(m, m.readString())
                try m.reply { r throws(BusError) in try r.append(text) }
            case "Subscribe", "SubscribeAllApps":
                let text = try subscribe(m, allApps: m.member == "SubscribeAllApps")
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockShow":
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            case "ClockSet":
                try clockSet(m.readString())
                return replyAfterDelivery(m) { [unowned self] in clockJSON() }
            case "ClockAdvance":
                try clockAdvance(microseconds: m.readUInt64())
                return replyAfterDelivery(m) { [unowned self] in clockJSON() }
            case "ClockNext":
                try clockNext()
                return replyAfterDelivery(m) { [unowned self] in clockJSON() }
            case "ClockZone":
                try clockZone(m.readString())
                let text = clockJSON()
                try m.reply { r throws(BusError) in try r.append(text) }
            default:
                throw ServiceFailure(.usage, "unknown method \(m.member)")
            }
            return .replied
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

    /// One push of `app` given as bytes (a decrypted UnifiedPush message): decoded, applied in the app's
    /// namespace, durable; returns the outcome array as JSON. (The Push method goes through the group
    /// commit instead: Daemon_GroupCommit.swift.)
    func push(bytes: [UInt8], app: String) throws(ServiceFailure) -> String {
        let decoded: Push
        do {
            decoded = try PushDecoder.decode(bytes)
        } catch {
            throw ServiceFailure(.invalidPush, error.message)
        }
        let outcomes = try engineCall { now throws(EngineError) in try engine.push(decoded, app: app, now: now) }
        announceCancellations(in: outcomes, app: app)
        return JSONValue.array(outcomes.map(JSONValue.init(outcome:))).serialized()
    }

    func announceCancellations(in outcomes: [PushOutcome], app: String) {
        for outcome in outcomes { if let ids = outcome.cancelled { announceCancelled(ids, reason: "push", app: app) } }
    }
}

extension BusMessage {
    /// The next string argument; "" when it cannot be read (sd-bus already checked the signature).
    func readStringOrEmpty() -> String { (try? readString()) ?? "" }
}
