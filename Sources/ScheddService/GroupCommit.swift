import SchedCalendar
import Scheduler
import ScheddProtocol

/// A write call's answer, or why it failed; handed to the call's `CallReply` exactly once.
public typealias CallReply = (Result<CallAnswer, ServiceFailure>) -> Void

/// The group-commit part (docs/faults.md, "Group commit"): owns the write calls waiting for the
/// commit. The calls waiting when the loop wakes are applied in ONE transaction, then answered, each
/// after the commit (CONTRACT §5 unchanged).
///
/// How: the service decodes and checks a write's arguments, `enqueue`s it and answers nothing yet;
/// its `LoopWork` (`.groupCommit`, below the bus in priority) runs once the bus has handed over
/// every message already waiting, and `flush` applies the queue in `Engine.group`. Each call keeps its
/// own all-or-nothing (a savepoint; a `PushBatch` needs none, its entries are undone one by one, and
/// a store failure inside it fails the group); a failed commit fails every call of the group with the
/// storage error. Any other call first flushes the queue, so a client that pipelines a push and a `List`
/// still sees its push. Every waiting call joins the group: its size is bounded by what the bus hands
/// over in one loop iteration (sd-bus's read buffer), and `maxGroup` only guards that bound.
public final class GroupCommit {
    /// At most this many calls per group: a guard on a group's transaction and the latency of its first
    /// call; far above what one loop iteration takes off the bus in practice.
    public static let maxGroup = 4096

    /// One decoded write operation (a method with `SchedulerMethod.grouped`).
    public enum Operation: Sendable {
        /// `Push(s)`: one decoded push.
        case push(Push)
        /// `PushBatch(as)`: the decoded pushes, the index in the call of each (`indexes[k]` is that of
        /// `pushes[k]`), and the answers of the rejected ones. Two arrays, not pairs: the engine takes
        /// `pushes` as it is (no copy of each push, which retained and released every field: ~5% of a bulk load).
        case pushBatch(pushes: [Push], indexes: [Int], answers: [String?])
        /// A `PushBatch` that `PushBatchDecoder` is decoding: it keeps its place in the queue, and the writes
        /// after it wait for it (a `.pushBatch` once decoded).
        case decoding(DecodingPushBatch)
        /// `Track(ss)`: the event and its data (JSON text, already checked).
        case track(event: String, data: String?)
        /// `Cancel(s)` / `CancelRun(s)`.
        case cancel(id: String)
        case cancelRun(run: String)

        /// What applying it costs, in the units of `FairQueue.writeBudget` (about one pushed schedule): a push
        /// 1, a batch its entries, a cancel by id 1, a `CancelRun`/`Track` 4 per schedule of the first slice it
        /// may cancel at once (a cancellation writes history and a tombstone and deletes: several rows). O(1).
        public var cost: Int {
            switch self {
            case .push, .cancel: 1
            case .pushBatch(let pushes, _, _): max(pushes.count, 1)
            case .decoding(let batch): max(batch.entries, 1)
            case .track, .cancelRun: 4 * Engine.cancelFirstSlice
            }
        }

        /// A `PushBatch`, decoded or decoding: the bulk path, which never waits for a running sync.
        var isBatch: Bool {
            switch self {
            case .pushBatch, .decoding: true
            default: false
            }
        }
    }

    private struct Waiting {
        var cost: Int
        var operation: Operation
        var app: String
        var member: String
        var reply: CallReply
    }

    private let engine: () -> Engine
    private let clock: ServiceClock
    private let storage: StorageMonitor
    private let announcer: CancelAnnouncer
    private let log: ServiceLog
    private var waiting: [Waiting] = []
    /// The cost units (`Operation.cost`) waiting per app; an app with none is absent.
    private var costByApp: [String: Int] = [:]
    /// How many of `waiting` are batches (`Operation.isBatch`), and the cost of all of `waiting`.
    private var batchesWaiting = 0
    private var waitingCost = 0
    /// A group held for the running sync (`holdsForSync`) stays below this cost: about as many pushes as
    /// make a batch worth the decoder's thread. A costlier write (a `Track`, a `CancelRun`: 1,000) commits
    /// at once, so that a held group never grows into a long transaction that other apps' calls wait behind
    /// (FairServiceTests: holding CancelRuns delayed another app's call by 2.8–3.0 s).
    static let holdCost = 64
    /// True while the waiting writes are held for the running sync (`holdsForSync`).
    private var heldForSync = false
    /// Runs `flushReady` once the bus has handed over what is waiting (no loop: `flush` at once).
    private var work: LoopWork!
    /// After every group is answered (the delivery part settles: delivers what became due, re-arms the
    /// timer); given in `init`.
    private let afterCommit: () -> Void

    /// Where a group's COMMIT is synced off the loop (nil: each COMMIT syncs the log itself, on the loop).
    public let durability: SyncPipeline?

    /// `durability`: the sync thread's pipeline; with it a group is answered once a sync that began after
    /// its COMMIT returned, and the loop forms the next group meanwhile.
    /// `loop`: where the commit runs (`.groupCommit`); nil: each write commits at once.
    /// `afterCommit`: runs once after each group's calls are answered and its cancellations announced (the
    /// daemon's `Delivery.settle`: what the group made due is delivered, the due timer re-armed).
    public init(engine: @escaping () -> Engine, clock: ServiceClock, storage: StorageMonitor,
                announcer: CancelAnnouncer, log: ServiceLog, durability: SyncPipeline? = nil, loop: LoopScheduler? = nil,
                afterCommit: @escaping () -> Void) {
        self.engine = engine; self.clock = clock; self.storage = storage; self.announcer = announcer; self.log = log
        self.durability = durability; self.afterCommit = afterCommit
        work = LoopWork(.groupCommit, on: loop, whenRefused: { [unowned self] error in
            log.error("cannot schedule the group commit (\(error)): committing at once")
            flush()
        }) { [unowned self] in flushReady() }
    }

    /// `action` once every write committed so far is on the disk — with `app`, every write of that app
    /// (at once without a deferred sync): the other calls' answers go through it, so that no answer shows
    /// a write that a power cut could still take back. `failure`: the sync of the log failed. O(1).
    public func whenDurable(app: String? = nil, _ action: @escaping (_ failure: String?) -> Void) {
        guard let durability else { return action(nil) }
        durability.whenDurable(app: app, action)
    }

    /// Shutdown: commits what waits, syncs on the calling thread, and answers every call.
    public func flushAndDrain() {
        flush()
        durability?.drain()
    }

    /// How many calls wait for the commit.
    public var waitingCount: Int { waiting.count }

    /// How the calls shared their commits since start: `commits` transactions held `calls` calls, the
    /// largest `largest`; `sizes[k]` commits held k + 1 calls (the last entry counts every larger group).
    public struct Statistics: Sendable, Equatable {
        public var commits = 0
        public var calls = 0
        public var largest = 0
        public var sizes = [Int](repeating: 0, count: 16)

        mutating func record(_ size: Int) {
            commits += 1; calls += size; largest = max(largest, size)
            sizes[min(size, sizes.count) - 1] += 1
        }

        /// `1234 calls in 456 commits (2.71 calls per commit, largest 4; by size 1:100 2:50 …)`.
        public var summary: String {
            let mean = commits == 0 ? 0 : Double(calls) / Double(commits)
            let bySize = sizes.indices.filter { sizes[$0] > 0 }
                .map { "\($0 + 1)\($0 == sizes.count - 1 ? "+" : ""):\(sizes[$0])" }.joined(separator: " ")
            return "\(calls) calls in \(commits) commits (\((mean * 100).rounded() / 100) calls per commit, largest \(largest)"
                + (bySize.isEmpty ? ")" : "; by size \(bySize))")
        }
    }
    public private(set) var statistics = Statistics()

    /// The cost units of `app`'s writes waiting for the commit. O(1).
    public func waitingCost(app: String) -> Int { costByApp[app] ?? 0 }

    /// Queues a write of `app` (method `member`), answered through `reply` after the commit.
    public func enqueue(_ operation: Operation, app: String, member: String, reply: @escaping CallReply) {
        let cost = operation.cost
        costByApp[app, default: 0] += cost
        waiting.append(Waiting(cost: cost, operation: operation, app: app, member: member, reply: reply))
        if operation.isBatch { batchesWaiting += 1 }
        waitingCost += cost
        guard waiting.count < Self.maxGroup else { return flush() }
        scheduleFlush()
    }

    /// Runs `flushReady` in a later loop iteration; `flush` at once without a loop, or when the loop
    /// refuses it.
    private func scheduleFlush() {
        guard work.isLooped else { return flush() }
        work.request()
    }

    /// Applies every queued write, then answers each call and announces what was cancelled: one
    /// transaction, or one per batch still decoding when the group began (each waited for in turn).
    /// Nothing is answered before its commit.
    public func flush() {
        while !waiting.isEmpty { commitReady() }
    }

    /// `flush` when `app` has writes waiting (a read of that app's own state must see them); else nothing.
    public func flush(ifWaiting app: String) {
        if costByApp[app] != nil { flush() }
    }

    /// The loop work's action: commits the writes up to the first batch still decoding (waiting for the first
    /// write itself when it is one), and leaves the rest for the next loop iteration, so that the loop
    /// applies one batch while the decoder's thread decodes the next (`PushBatchDecoder`).
    public func flushReady() {
        if holdsForSync() { return }
        commitReady()
        if !waiting.isEmpty { scheduleFlush() }
    }

    /// While a sync of earlier groups is under way, a cheap group (no batch, below `holdCost`) waits for it
    /// to return instead of committing now: its answers could not leave before the sync after it anyway, and the calls that
    /// arrive meanwhile join it, so the loop makes fewer, larger commits (less CPU per call; the group
    /// forms while the disk syncs). A batch commits at once, so that the loop applies one batch while the
    /// disk syncs the one before; so does a costly write. `flush` (another call, shutdown) never waits. O(1).
    private func holdsForSync() -> Bool {
        guard let durability, durability.isSyncing, batchesWaiting == 0, waitingCost < Self.holdCost else { return false }
        if !heldForSync {
            heldForSync = true
            durability.afterRunningSync { [self] in
                heldForSync = false
                if !waiting.isEmpty { scheduleFlush() }
            }
        }
        return true
    }

    /// The first write (its decode waited for) and every decoded one after it, in one transaction.
    private func commitReady() {
        guard !waiting.isEmpty else { return }
        var end = 0
        while end < waiting.count {
            if case .decoding(let batch) = waiting[end].operation {
                guard end == 0 || batch.isReady else { break }
                waiting[end].operation = batch.operation()
            }
            end += 1
        }
        let writes = Array(waiting[..<end])
        waiting.removeFirst(end)
        for write in writes {
            if write.operation.isBatch { batchesWaiting -= 1 }
            waitingCost -= write.cost
            let left = (costByApp[write.app] ?? 0) - write.cost
            costByApp[write.app] = left > 0 ? left : nil
        }
        statistics.record(writes.count)
        var results: [Result<Applied, ServiceFailure>] = []
        results.reserveCapacity(writes.count)
        let engine = engine()
        // A lone write needs no savepoint: its transaction is its undo. (A savepoint around a PushBatch of
        // 1,000 keeps every page it changes in SQLite's in-memory sub-journal, whose chunk list is walked
        // again and again: 18% of the daemon's profile, 2.6× slower inserts measured; BENCHMARKS.md §3b.)
        var loneFailure: EngineError?
        var failure: EngineError?
        let commit = commitWithoutSync {
            do throws(EngineError) {
                try engine.group { () throws(EngineError) in
                    let now = clock.now
                    if writes.count == 1, let write = writes.first {
                        do throws(EngineError) {
                            results.append(.success(try Self.applyMember(write.operation, app: write.app, now: now, engine: engine)))
                        } catch {
                            loneFailure = error
                            throw error  // rolls back everything it did
                        }
                    } else {
                        for write in writes {
                            if case .pushBatch = write.operation {
                                // No savepoint (its sub-journal would hold a pre-image of every page the batch
                                // changes: 11% of the daemon's profile in a bulk load, spilled to a temporary file).
                                // `pushEach` answers and undoes each engine rejection itself; what it throws is a
                                // store failure, which fails the whole group (below: every call gets the error).
                                results.append(.success(try Self.applyMember(write.operation, app: write.app, now: now,
                                                                             engine: engine)))
                            } else {
                                results.append(apply(write.operation, app: write.app, now: now, engine: engine))
                            }
                        }
                    }
                }
            } catch {
                failure = error
            }
        }
        if let error = failure {
            if let loneFailure {
                // The lone write failed and was rolled back whole: answered like a failed member of a group.
                storage.succeeded()
                results = [.failure(ServiceFailure(loneFailure))]
            } else {
                // Named by the methods of the group ("Push", or "Cancel, Push" for a mixed group).
                storage.failed(Self.methods(of: writes), ServiceFailure(error), backOff: false)
                results = writes.map { _ in .failure(ServiceFailure(error)) }
            }
        } else {
            storage.succeeded()
        }
        let answered = results
        guard let commit, let durability else { return answer(writes, answered, syncFailure: nil) }
        for write in writes { durability.record(commit, app: write.app) }
        durability.whenDurable(through: commit) { [self] syncFailure in answer(writes, answered, syncFailure: syncFailure) }
    }

    /// The methods of a group, as a storage failure names it: "Push", or "Cancel, Push" for a mixed group.
    private static func methods(of writes: [Waiting]) -> String {
        Set(writes.map(\.member)).sorted().joined(separator: ", ")
    }

    /// Runs `transactions` without the sync at COMMIT when a pipeline syncs for the group commit; their
    /// commit's number when they must wait for that sync, nil when they synced themselves.
    private func commitWithoutSync(_ transactions: () -> Void) -> SyncPipeline.Commit? {
        guard let durability else { transactions(); return nil }
        return durability.commitWithoutSync(transactions)
    }

    /// Answers each call of a committed group (now durable) and announces what it cancelled; with
    /// `syncFailure`, the log's sync failed: every call is answered with a storage error instead.
    private func answer(_ writes: [Waiting], _ results: [Result<Applied, ServiceFailure>], syncFailure: String?) {
        var results = results
        if let syncFailure {
            let failure = ServiceFailure(.storage, "the write was committed but could not be synced to the disk (\(syncFailure)); "
                                         + "it may be lost if the machine loses power: try again")
            storage.failed(Self.methods(of: writes), failure, backOff: false)
            results = results.map { _ in .failure(failure) }
        }
        for (write, result) in zip(writes, results) {
            switch result {
            case .success(let applied):
                announce(applied, app: write.app)
                write.reply(.success(applied.answer))
            case .failure(let failure):
                if failure.name == .storage { storage.failed(write.member, failure, backOff: false) }
                write.reply(.failure(failure))
            }
        }
        afterCommit()
    }

    /// One operation inside the group; its own failure is undone alone (a savepoint) and answered.
    private func apply(_ operation: Operation, app: String, now: Instant, engine: Engine) -> Result<Applied, ServiceFailure> {
        do throws(EngineError) {
            return .success(try engine.groupMember { () throws(EngineError) in
                try Self.applyMember(operation, app: app, now: now, engine: engine)
            })
        } catch {
            return .failure(ServiceFailure(error))
        }
    }

    private static func applyMember(_ operation: Operation, app: String, now: Instant, engine: Engine)
        throws(EngineError) -> Applied {
        switch operation {
        case .decoding(let batch):  // resolved by `commitReady` before any write is applied
            return try applyMember(batch.operation(), app: app, now: now, engine: engine)
        case .push(let push):
            let outcomes = try engine.push(push, app: app, now: now)
            return Applied(answer: .string(outcomesJSON(outcomes)), pushOutcomes: outcomes)
        case .pushBatch(let pushes, let indexes, var answers):
            // Each push on its own: one the engine rejects (over the quota) changes nothing, the others apply.
            var applied: [PushOutcome] = []
            var budget = IDBudget()  // the ids listed across the whole reply, not per entry (CONTRACT §9)
            for (index, result) in zip(indexes, try engine.pushEach(pushes, app: app, now: now)) {
                switch result {
                case .success(let outcomes):
                    applied += outcomes
                    answers[index] = outcomesJSON(outcomes, budget: &budget)
                case .failure(let error):
                    answers[index] = errorJSON(error.message)
                }
            }
            return Applied(answer: .strings(answers.map { $0 ?? errorJSON("not processed") }), pushOutcomes: applied)
        case .track(let event, let data):
            let result = try engine.trackReporting(event: event, app: app, dataJSON: data, now: now)
            return Applied(answer: .cancelled(result.cancelled, unlisted: result.unlisted), cancelled: result.cancelled,
                           unlisted: result.unlisted, reason: "event:\(event)")
        case .cancel(let id):
            let ids = try engine.cancel(id: id, app: app, now: now)
            return Applied(answer: .cancelled(ids), cancelled: ids, reason: "cli")
        case .cancelRun(let run):
            let result = try engine.cancelReporting(run: run, app: app, now: now)
            return Applied(answer: .cancelled(result.cancelled, unlisted: result.unlisted), cancelled: result.cancelled,
                           unlisted: result.unlisted, reason: "run")
        }
    }

    private func announce(_ applied: Applied, app: String) {
        for outcome in applied.pushOutcomes {
            if let ids = outcome.cancelled {
                announcer.announceCancelled(ids, unlisted: outcome.cancelledUnlisted, reason: "push", app: app)
            }
        }
        if !applied.cancelled.isEmpty {
            announcer.announceCancelled(applied.cancelled, unlisted: applied.unlisted, reason: applied.reason, app: app)
        }
    }

    /// The reply of one applied write, and what to announce once it is committed.
    private struct Applied {
        var answer: CallAnswer
        var pushOutcomes: [PushOutcome] = []
        var cancelled: [String] = []
        var unlisted = 0
        var reason = ""
    }
}

/// A push's outcomes as the JSON array a `Push` answers: `JSONValue(outcome:)` of each, serialized
/// (written straight into bytes: `JSONValue.writeOutcome`).
public func outcomesJSON(_ outcomes: [PushOutcome]) -> String {
    var budget = IDBudget()
    return outcomesJSON(outcomes, budget: &budget)
}

/// `outcomesJSON` listing at most what is left of `budget` (a PushBatch reply's, shared by its entries).
func outcomesJSON(_ outcomes: [PushOutcome], budget: inout IDBudget) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(96 * outcomes.count + 2)
    out.append(UInt8(ascii: "["))
    for (i, outcome) in outcomes.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        JSONValue.writeOutcome(outcome, budget: &budget, into: &out)
    }
    out.append(UInt8(ascii: "]"))
    return String(decoding: out, as: UTF8.self)
}

/// `{"error": message}`, a rejected entry's answer in a `PushBatch`; with `detail`, also `"member"`,
/// `"rule"` and (a JSON syntax error) `"position"` (the byte offset in the entry) and `"syntax"` (the reason
/// without it): README.md "Errors".
func errorJSON(_ message: String, detail: SchedulerErrorDetail? = nil) -> String {
    var members = [JSONMember("error", .string(message))]
    if let detail {
        members += [JSONMember("member", .string(detail.member)), JSONMember("rule", .string(detail.rule))]
        if let position = detail.position { members.append(JSONMember("position", .number(String(position)))) }
        if let syntax = detail.syntax { members.append(JSONMember("syntax", .string(syntax))) }
    }
    return JSONValue.object(members).serialized()
}
