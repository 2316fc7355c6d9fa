import SchedCalendar
import Scheduler

/// The app a call acts for (CONTRACT §8), as the identity part attributed it.
public struct Caller: Sendable, Equatable {
    public var app: String
    /// A Flatpak-sandboxed caller sees only its own app's schedules.
    public var sandboxed: Bool
    /// What a sandboxed caller's pushes may link to and show (CONTRACT §8 "Nothing of the host"); nil
    /// for an unsandboxed caller. A sandboxed caller given none is held to `SandboxedPushRules()`
    /// (http and https links only).
    public var pushRules: SandboxedPushRules?
    /// Whether it may call the every-app methods (`ListAllAppsPage`, …): an unsandboxed caller, and on
    /// a bus of several users only root or the daemon's own user (CONTRACT §8 v3, per-user namespaces).
    public var mayNameEveryApp: Bool
    public init(app: String, sandboxed: Bool, pushRules: SandboxedPushRules? = nil, mayNameEveryApp: Bool? = nil) {
        self.app = app; self.sandboxed = sandboxed; self.pushRules = sandboxed ? pushRules ?? SandboxedPushRules() : nil
        self.mayNameEveryApp = !sandboxed && (mayNameEveryApp ?? true)
    }
}

/// A method's answer, typed by its reply signature (SchedulerMethod.reply).
public enum CallAnswer: Sendable, Equatable {
    /// `s`
    case string(String)
    /// `as`
    case strings([String])
    /// `u`
    case count(UInt32)
    /// `ss`: a page and the cursor of the next.
    case listPage(pending: String, next: String)
    /// `st`: a page and the `before` of the next.
    case historyPage(records: String, next: UInt64)
    /// `uasb`: how many schedules a Track/Cancel/CancelRun cancelled, the first of their ids (in due
    /// order) that fit `ReplyBounds`, and whether more were cancelled than listed.
    case cancelled(count: UInt32, ids: [String], more: Bool)

    /// The bounded answer for `ids` cancelled: at most `ReplyBounds.maxRows` ids and `maxBytes` bytes.
    /// O(ids listed).
    public static func cancelled(_ ids: [String], unlisted: Int = 0) -> CallAnswer {
        let listed = boundedPrefix(ids)
        return .cancelled(count: UInt32(clamping: ids.count + unlisted), ids: Array(ids.prefix(listed)),
                          more: listed < ids.count || unlisted > 0)
    }
}

/// How many of `ids`, from the first, fit one reply: at most `ReplyBounds.maxRows`, and at most
/// `ReplyBounds.maxBytes` bytes of UTF-8 in all. O(ids taken).
public func boundedPrefix(_ ids: [String], maxRows: Int = ReplyBounds.maxRows, maxBytes: Int = ReplyBounds.maxBytes) -> Int {
    var bytes = 0, count = 0
    for id in ids.prefix(maxRows) {
        bytes += id.utf8.count + 1
        if bytes > maxBytes { break }
        count += 1
    }
    return count
}

/// The service part: the one dispatcher of org.schedd.Scheduler1. It takes a call decoded once into
/// `SchedulerCall` (the bus layer decodes a message, the dispatch fuzzer decodes wire bytes) with the
/// caller's app, runs it, and answers through `reply` — at once, or later: a write after its group
/// commit, a clock move after its delivery. Every call is answered exactly once.
///
/// Owns no state of its own beyond its parts' references; the rules are the engine's, the waiting
/// writes the group commit's, the clock the clock part's.
public final class Service {
    let engine: () -> Engine
    let clock: ServiceClock
    let delivery: Delivery
    let groupCommit: GroupCommit
    let storage: StorageMonitor
    let announcer: CancelAnnouncer
    /// Decodes large PushBatch calls off the loop once its thread runs (nil, or not started: every call
    /// decoded at once); given in `init`.
    public let batchDecoder: PushBatchDecoder?
    /// The cancellation jobs' slicing, which `ClockNext` waits for (nil: it does not wait).
    let cancelSlicing: CancelSlicing?
    /// Seals paging positions per app (`ListPage` cursors, `HistoryPage` positions): drawn at start.
    let pagingSeal = PagingSeal()
    /// The calls that are not writes, served one per loop iteration in turn by app (without a loop every
    /// call runs at once).
    public let fairQueue: FairQueue
    /// What is known of the machine's sleep (`Status`, `ClockSleep`).
    public let sleep: SleepState
    /// The daemon's own members of `Status` (version, database, notifier, bus), first in its answer.
    let statusMembers: () -> [JSONMember]

    /// `fairQueue`: the lanes the calls wait in (the cancellation slices take turns in them too);
    /// `cancelSlicing`: what `ClockNext` waits for; `batchDecoder`: the thread that decodes large
    /// PushBatch calls (nil: decoded on the loop, at once); `statusMembers`: the daemon's own members of
    /// `Status`, read at each call (none by default).
    public init(engine: @escaping () -> Engine, clock: ServiceClock, delivery: Delivery, groupCommit: GroupCommit,
                storage: StorageMonitor, announcer: CancelAnnouncer, sleep: SleepState = SleepState(),
                fairQueue: FairQueue = FairQueue(), cancelSlicing: CancelSlicing? = nil,
                batchDecoder: PushBatchDecoder? = nil, statusMembers: @escaping () -> [JSONMember] = { [] }) {
        self.engine = engine; self.clock = clock; self.delivery = delivery; self.groupCommit = groupCommit
        self.storage = storage; self.announcer = announcer; self.sleep = sleep
        self.fairQueue = fairQueue; self.cancelSlicing = cancelSlicing
        self.batchDecoder = batchDecoder; self.statusMembers = statusMembers
    }

    /// Runs `call` for `caller` (nil only for calls that need no app: the clock methods) and answers
    /// through `reply`, exactly once. `DeclareApp` belongs to the identity part and is refused here.
    public func serve(_ call: SchedulerCall, caller: Caller?, reply: @escaping CallReply) {
        let method = call.method
        if method.grouped {
            do throws(ServiceFailure) {
                let known = try requireCaller(caller, method)
                let app = known.app
                let operation: GroupCommit.Operation
                if case .pushBatch(let texts) = call, texts.count >= PushBatchDecoder.minimumEntries, let batchDecoder,
                   batchDecoder.isRunning {
                    operation = .decoding(batchDecoder.submit(texts, zones: engine().zones, rules: known.pushRules))
                } else {
                    operation = try Self.operation(call, zones: engine().zones, rules: known.pushRules)
                }
                let handOver = { [groupCommit] in groupCommit.enqueue(operation, app: app, member: method.name, reply: reply) }
                // To the commit at once, unless the app has calls waiting (its order is kept: after them) or
                // already a turn's worth of writes waiting for the commit (FairQueue: one turn at a time).
                let pending = groupCommit.waitingCost(app: app)
                if fairQueue.hasWaiting(lane: app) || (pending > 0 && pending + operation.cost > FairQueue.writeBudget) {
                    fairQueue.enqueueWrite(lane: app, cost: operation.cost, handOver)
                } else {
                    handOver()
                }
            } catch {
                reply(.failure(error))
            }
            return
        }
        // Served in its app's turn (FairQueue): one app's flood delays another's call by one turn.
        fairQueue.enqueue(lane: caller?.app ?? "") { [self] in serveNow(call, caller: caller, reply: reply) }
    }

    /// Runs a call that is not grouped, after committing the writes waiting before it.
    private func serveNow(_ call: SchedulerCall, caller: Caller?, reply: @escaping CallReply) {
        let method = call.method
        // Every other call sees the writes that came before it: a read of the caller's app alone, that
        // app's (another app's waiting writes are not its business, nor their commit's cost).
        let scope = method.readsOnlyCallersApp ? caller?.app : nil
        if let scope { groupCommit.flush(ifWaiting: scope) } else { groupCommit.flush() }
        do throws(ServiceFailure) {
            if let answer = try run(call, caller: caller, reply: reply) {
                if method.writes { storage.succeeded() }
                answerWhenDurable(reply, .success(answer), app: scope)
            }
        } catch {
            if error.name == .storage { storage.failed(method.name, error, backOff: false) }
            answerWhenDurable(reply, .failure(error), app: scope)
        }
    }

    /// Sends `result` once the group commits it may have seen are on the disk (`GroupCommit.whenDurable`:
    /// at once unless a sync is under way), so that no answer shows a write a power cut could take back:
    /// with `app`, that app's commits only (the call shows nothing else). A failed sync changes nothing
    /// here: the writes' own callers are told; this call saw them committed.
    private func answerWhenDurable(_ reply: @escaping CallReply, _ result: Result<CallAnswer, ServiceFailure>, app: String?) {
        groupCommit.whenDurable(app: app) { _ in reply(result) }
    }

    private func requireCaller(_ caller: Caller?, _ method: SchedulerMethod) throws(ServiceFailure) -> Caller {
        guard let caller else { throw ServiceFailure(.usage, "\(method.name) needs the caller's app") }
        return caller
    }

    /// The group-commit operation of a grouped call: arguments decoded and checked now, so a rejected
    /// push or malformed data is answered at once, without waiting for the commit. `rules`: a sandboxed
    /// caller's (nil: unsandboxed, not checked).
    static func operation(_ call: SchedulerCall, zones: any ZoneResolver,
                          rules: SandboxedPushRules? = nil) throws(ServiceFailure) -> GroupCommit.Operation {
        switch call {
        case .push(let text): return .push(try decodePush(text, zones: zones, rules: rules))
        case .pushBatch(let texts): return decodeBatch(texts, zones: zones, rules: rules)
        case .track(let event, let data):
            if let data {
                do { _ = try JSONValue.parse(data) } catch { throw ServiceFailure(.invalidArgument, "data: \(error.description)") }
            }
            return .track(event: event, data: data)
        case .cancel(let id): return .cancel(id: id)
        case .cancelRun(let run): return .cancelRun(run: run)
        default: throw ServiceFailure(.usage, "\(call.name) is not a group-commit write")
        }
    }

    /// A `PushBatch`'s operation: each text decoded on its own, a rejected one answered with its error.
    /// Pure (the zone resolver is `Sendable`): `PushBatchDecoder` runs it on its thread. O(total bytes).
    static func decodeBatch(_ texts: [String], zones: any ZoneResolver, rules: SandboxedPushRules? = nil) -> GroupCommit.Operation {
        var answers = [String?](repeating: nil, count: texts.count)
        var pushes: [Push] = [], indexes: [Int] = []
        pushes.reserveCapacity(texts.count)
        indexes.reserveCapacity(texts.count)
        for (i, text) in texts.enumerated() {
            do throws(ServiceFailure) {
                pushes.append(try decodePush(text, zones: zones, rules: rules))
                indexes.append(i)
            } catch {
                answers[i] = errorJSON(error.message, detail: error.detail)
            }
        }
        return .pushBatch(pushes: pushes, indexes: indexes, answers: answers)
    }

    /// One push decoded; with `rules` (a sandboxed caller's), also checked against them: a link or
    /// file it may not give is InvalidArgument naming the member (CONTRACT §8 "Nothing of the host").
    static func decodePush(_ text: String, zones: any ZoneResolver, rules: SandboxedPushRules? = nil) throws(ServiceFailure) -> Push {
        let push: Push
        do {
            // The string's own bytes, not a copy. The digest, which the engine reads once per push, is
            // computed here: for a batch this runs on the decoder's thread, off the loop.
            push = try PushDecoder.decode(text.utf8, zones: zones, memoizingDigest: true)
        } catch {
            throw ServiceFailure(.invalidPush, error)
        }
        try checkSandboxed(push, rules)
        return push
    }

    /// Throws InvalidArgument when `rules` (a sandboxed caller's) refuse a member of `push`.
    static func checkSandboxed(_ push: Push, _ rules: SandboxedPushRules?) throws(ServiceFailure) {
        do { try rules?.check(push) } catch { throw ServiceFailure(.invalidArgument, error) }
    }

    /// The calls that are not grouped; nil when the answer comes later through `reply` (a clock move
    /// answered once the delivery it started is done).
    private func run(_ call: SchedulerCall, caller: Caller?, reply: @escaping CallReply) throws(ServiceFailure) -> CallAnswer? {
        let method = call.method
        switch call {
        case .cancelReport(let name), .cancelRunReport(let name):
            let app = try requireCaller(caller, method).app
            let byRun = method.name == "CancelRunReport"
            let result = try engineCall { now throws(EngineError) in
                byRun ? try engine().cancelReporting(run: name, app: app, now: now)
                    : try engine().cancelReporting(id: name, app: app, now: now)
            }
            announcer.announceCancelled(result.cancelled, unlisted: result.unlisted, reason: byRun ? "run" : "cli", app: app)
            return .string(JSONValue(cancel: result, name: name, byRun: byRun).serialized())
        case .list(let limit, let offset):
            return .string(try legacyList(app: try requireCaller(caller, method).app, limit: limit, offset: offset))
        case .listPage(let after, let limit):
            let page = try listPage(app: try requireCaller(caller, method).app, after: after, limit: limit)
            return .listPage(pending: page.pending, next: page.next)
        case .listAllAppsPage(let after, let limit):
            try requireUnsandboxed(try requireCaller(caller, method), for: "listing every app's schedules")
            let page = try listPage(app: nil, after: after, limit: limit)
            return .listPage(pending: page.pending, next: page.next)
        case .history(let limit):
            return .string(try legacyHistory(app: try requireCaller(caller, method).app, limit: limit))
        case .historyPage(let before, let limit):
            let page = try historyPage(app: try requireCaller(caller, method).app, before: before, limit: limit)
            return .historyPage(records: page.records, next: page.next)
        case .historyAllAppsPage(let before, let limit):
            try requireUnsandboxed(try requireCaller(caller, method), for: "reading every app's history")
            let page = try historyPage(app: nil, before: before, limit: limit)
            return .historyPage(records: page.records, next: page.next)
        case .snoozed(let limit):
            return .string(try snoozedJSON(app: try requireCaller(caller, method).app, limit: limit))
        case .snoozedAllApps(let limit):
            try requireUnsandboxed(try requireCaller(caller, method), for: "listing every app's snoozed notifications")
            return .string(try snoozedJSON(app: nil, limit: limit))
        case .tombstone(let id):
            return .string(try tombstoneJSON(app: try requireCaller(caller, method).app, id: id))
        case .unblock(let id):
            return .string(try unblockJSON(app: try requireCaller(caller, method).app, id: id))
        case .pendingCount:
            let app = try requireCaller(caller, method).app
            return .count(UInt32(clamping: try engineCall { _ throws(EngineError) in try engine().pendingCount(app: app) }))
        case .pendingCountAllApps:
            try requireUnsandboxed(try requireCaller(caller, method), for: "counting every app's schedules")
            return .count(UInt32(clamping: try engineCall { _ throws(EngineError) in try engine().pendingCount(app: nil) }))
        case .clockShow:
            return .string(clock.json())
        case .clockSet(let text):
            try clock.set(text)
            delivery.replyAfterDelivery(reply) { [clock] in .string(clock.json()) }
            return nil
        case .clockAdvance(let microseconds):
            try clock.advance(microseconds: microseconds)
            delivery.replyAfterDelivery(reply) { [clock] in .string(clock.json()) }
            return nil
        case .clockNext:
            // A schedule a cancellation job still covers is cancelled, though still in the wheel: the clock
            // moves once the jobs are done, so that it stops where something is really due.
            try clock.checkFake("next")
            let next = { [clock, delivery] in
                do throws(ServiceFailure) {
                    try clock.next()
                } catch {
                    return reply(.failure(error))
                }
                delivery.replyAfterDelivery(reply) { .string(clock.json()) }
            }
            if let cancelSlicing { cancelSlicing.afterJobs(next) } else { next() }
            return nil
        case .clockZone(let name):
            try clock.zone(name)
            return .string(clock.json())
        case .clockSleep(let microseconds):
            try clock.sleep(microseconds: microseconds, state: sleep)
            delivery.replyAfterDelivery(reply) { [clock] in .string(clock.json()) }
            return nil
        case .status:
            return .string(try statusJSON(caller: try requireCaller(caller, method)))
        case .declareApp, .subscribe, .subscribeAllApps:
            throw ServiceFailure(.usage, "\(call.name) is answered by the identity part, not the service")
        case .push, .pushBatch, .track, .cancel, .cancelRun:
            throw ServiceFailure(.usage, "\(call.name) goes through the group commit")
        }
    }

    /// A call that acts on every app's schedules needs an unsandboxed caller.
    func requireUnsandboxed(_ caller: Caller, for what: String) throws(ServiceFailure) {
        if caller.sandboxed {
            throw ServiceFailure(accessDenied: "the caller is the sandboxed app \(caller.app); a sandboxed app sees only "
                                 + "its own schedules, so \(what) is not allowed")
        }
        if !caller.mayNameEveryApp {
            throw ServiceFailure(accessDenied: "the caller (\(caller.app)) sees only its own user's schedules (each user has "
                                 + "its own namespace on this bus; only root sees every user's), so \(what) is not allowed")
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
        delivery.settle()
        return result
    }

    /// One push of `app` given as bytes (a decrypted UnifiedPush message): decoded, checked against
    /// `rules` (the host holds every message from the network to the sandboxed rules), applied in the
    /// app's namespace, durable; returns the outcome array as JSON. (The Push method goes through the
    /// group commit instead.) Any waiting writes are committed first.
    /// `alongside` runs in the push's transaction, after it applied: durable with it, or undone with it.
    public func push(bytes: [UInt8], app: String, rules: SandboxedPushRules? = nil,
                     alongside: () throws(StoreError) -> Void = {}) throws(ServiceFailure) -> String {
        groupCommit.flush()
        let decoded: Push
        do {
            decoded = try PushDecoder.decode(bytes, zones: engine().zones)
        } catch {
            throw ServiceFailure(.invalidPush, error.message)
        }
        try Self.checkSandboxed(decoded, rules)
        let outcomes: [PushOutcome]
        do {
            outcomes = try engineCall { now throws(EngineError) in try engine().push(decoded, app: app, now: now, alongside: alongside) }
            storage.succeeded()
        } catch {
            if error.name == .storage { storage.failed("UnifiedPush message", error, backOff: false) }
            throw error
        }
        for outcome in outcomes {
            if let ids = outcome.cancelled {
                announcer.announceCancelled(ids, unlisted: outcome.cancelledUnlisted, reason: "push", app: app)
            }
        }
        return outcomesJSON(outcomes)
    }
}
