import SchedCalendar

// What blocks an id (CONTRACT §1 tombstones), for `schedd add`: the tombstone and the cancel that left
// it, and lifting an id's own tombstone (`add --replace`). Pushes never lift one: for machines a
// tombstone blocks silently (status `cancelled`).

/// A tombstone that blocks an id: its own (`kind` `.id`, `name` the id) or its run's (`.run`).
public struct BlockingTombstone: Sendable, Equatable {
    public var kind: TombstoneKind
    public var name: String
    /// When the cancel that left it happened (the latest, when there were several).
    public var at: Instant
    /// The reason of that cancel as history records it (`cli`, `push`, `run`, `event:NAME`); nil when
    /// the cancel named nothing pending (no history record) or its record was purged.
    public var reason: String?
    /// Until when it is kept at least (`at` + 30 days).
    public var keptUntil: Instant
}

/// What blocks an id and lifting it: a part of the engine (docs/architecture.md "The engine's parts"), a value
/// over the engine's one state. Reads `tombstones`, `cancel_jobs`, history; `unblock` writes `tombstones`,
/// the id's applied digests and finished record, and history; a schedule a cancellation job still covers
/// is cancelled first (`CancelJobs.settleCovered`, over the same state).
struct Tombstones {
    let state: EngineState

    /// The tombstone that would block a push with `id` in `app`: a cancellation job's about to be left
    /// (event jobs), then the id's own, then its run's; nil when none. Reads only; `id` must follow the id
    /// rule (else `.invalidArgument`). O(log n), plus a scan of the app's history for the reason of an
    /// id's cancel.
    func blocking(id: String, app: String) throws(EngineError) -> BlockingTombstone? {
        try Cancellation.checkName(id, "id", maxBytes: PushDecoder.maxIdBytes)
        let store = state.store
        return try storeCalls { () throws(StoreError) -> BlockingTombstone? in
            let keep = Engine.tombstoneRetentionSeconds
            // Covered by a cancellation job of an event: the tombstone its slice will leave.
            if store.cancelJobs.mayExist, let s = try store.schedules.schedule(app: app, id: id),
               let job = try store.cancelJobs.covering(app: app, id: id, key: s.key), job.kind == .event {
                return BlockingTombstone(kind: .id, name: id, at: job.at, reason: job.reason, keptUntil: job.at.adding(seconds: keep))
            }
            if let at = try store.tombstones.created(app: app, .id, id) {
                let cancel = try store.history.lastCancel(app: app, id: id)
                return BlockingTombstone(kind: .id, name: id, at: at,
                                         reason: cancel?.reason,
                                         keptUntil: at.adding(seconds: keep))
            }
            let run = runId(of: id)
            if let at = try store.tombstones.created(app: app, .run, run) {
                return BlockingTombstone(kind: .run, name: run, at: at, reason: "run", keptUntil: at.adding(seconds: keep))
            }
            return nil
        }
    }

    /// Lifts `id`'s own tombstone in `app` and forgets its earlier pushes (applied digests, finished
    /// record), in one transaction. Invariants: a run's tombstone stays; lifting one is recorded
    /// (`unblocked`, reason `unblock`), nothing to lift records nothing (the earlier pushes are still
    /// forgotten); durable before it returns. True when there was a tombstone. O(log n).
    func unblock(id: String, app: String, now: Instant) throws(EngineError) -> Bool {
        try Cancellation.checkName(id, "id", maxBytes: PushDecoder.maxIdBytes)
        let store = state.store
        return try state.transaction { (changes: inout ChangeSet) throws(StoreError) -> Bool in
            // Covered by a cancellation job: cancelled first, as if the job had reached it.
            if store.cancelJobs.mayExist, let s = try store.schedules.schedule(app: app, id: id) {
                _ = try CancelJobs(state: state).settleCovered(s, changes: &changes)
            }
            let had = try store.tombstones.created(app: app, .id, id) != nil
            // No tombstone: the earlier pushes are still forgotten (`add --replace` of a superseded
            // push); no state anyone sees changes, so nothing is recorded.
            guard had else { try store.tombstones.forgetID(app: app, id: id); return false }
            // Title, messageId and data when the finished record (which forgetID removes) has them.
            var record = HistoryRecord(app: app, id: id, event: .unblocked, at: now, due: nil, reason: "unblock",
                                       lateSeconds: nil, title: nil, messageId: nil, dataJSON: nil)
            try state.fillDetails(&record)
            try store.tombstones.forgetID(app: app, id: id)
            try store.history.append(record)
            return true
        }.result
    }
}

// The engine's public tombstone calls (the facade over `Tombstones`).
extension Engine {
    var tombstones: Tombstones { Tombstones(state: state) }

    /// The tombstone that would block a push with `id` in `app`: the id's own first, then its run's;
    /// nil when none. O(log n), plus a scan of the app's history for the reason of an id's cancel
    /// (`Tombstones.blocking`).
    public func blockingTombstone(id: String, app: String = Engine.defaultApp) throws(EngineError) -> BlockingTombstone? {
        try tombstones.blocking(id: id, app: app)
    }

    /// Lifts `id`'s own tombstone in `app` and forgets its earlier pushes (applied digests, finished
    /// record; also when there is no tombstone): the next push with `id` is judged as the first. A run's
    /// tombstone stays. Lifting one is a state change, so history records it (`unblocked`, reason
    /// `unblock`, CONTRACT §5); nothing to lift changes nothing and records nothing. Durable before it
    /// returns; true when there was a tombstone to lift. O(log n) (`Tombstones.unblock`).
    public func unblock(id: String, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> Bool {
        try tombstones.unblock(id: id, app: app, now: now)
    }
}
