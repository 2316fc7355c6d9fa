import SchedCalendar

// Cancellation by id, by run and by event (`track`), and the tombstones they leave (CONTRACT §1, §4, §7).
extension Engine {
    /// Cancels one schedule (reason `cli`), leaving a tombstone even when unknown; returns the ids cancelled.
    /// `id` must follow the id rule (CONTRACT §1: 1–200 bytes, no control characters), else
    /// `.invalidArgument` (`id: longer than 200 bytes`) and nothing is stored.
    /// Everything is in `app`'s namespace (CONTRACT §8).
    public func cancel(id: String, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> [String] {
        try cancelReporting(id: id, app: app, now: now).cancelled
    }

    /// `cancel(id:now:)`, also saying which notifications were on screen and were closed.
    public func cancelReporting(id: String, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> CancelResult {
        try Cancellation.checkName(id, "id", maxBytes: PushDecoder.maxIdBytes)
        return try cancellation.cancelling(app: app, quota: quota, now: now, reason: "cli") { (changes: inout ChangeSet) throws(EngineError) in
            try cancellation.cancelSchedules(app: app, id: id, reason: "cli", sparing: nil, now: now, changes: &changes)
        }
    }

    /// Cancels every schedule of a run (reason `run`), leaving a run tombstone. Runs match exactly:
    /// `run_4` covers `run_4` and `run_4:a`, never `run_44:a`. `run` follows the id rule like `cancel(id:)`.
    public func cancel(run: String, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> [String] {
        try cancelReporting(run: run, app: app, now: now).cancelled
    }

    /// `cancel(run:now:)`, also saying which notifications were on screen and were closed.
    public func cancelReporting(run: String, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> CancelResult {
        try Cancellation.checkName(run, "run", maxBytes: PushDecoder.maxIdBytes)
        var unlisted = 0
        var result = try cancellation.cancelling(app: app, quota: quota, now: now, reason: "run") { (changes: inout ChangeSet) throws(EngineError) in
            let (ids, rest) = try cancellation.cancelSchedules(app: app, run: run, reason: "run", sparing: nil, now: now, changes: &changes)
            unlisted = rest
            return ids
        }
        result.unlisted = unlisted
        return result
    }

    /// `track NAME`: cancels every pending schedule whose cancelOn holds `event` exactly (history
    /// `cancelled`, reason `event:NAME`, an id tombstone each) and returns their ids in due order — at most
    /// `cancelFirstSlice` of them: beyond that the rest is covered by a cancellation job (`trackReporting`).
    public func track(event: String, app: String = Engine.defaultApp, dataJSON: String?, now: Instant)
        throws(EngineError) -> [String] {
        try trackReporting(event: event, app: app, dataJSON: dataJSON, now: now).cancelled
    }

    /// `track`, saying how many it cancelled: `cancelled` (the first `cancelFirstSlice` by due, cancelled
    /// in this call's transaction) and `unlisted` (the rest, covered by a job recorded in the same
    /// transaction and cancelled in slices: Engine_CancelJobs.swift).
    ///
    /// "Only schedules stored before the event" (CONTRACT §4): the job covers keys up to the largest one
    /// stored at the call, and the store gives later schedules larger keys while the job exists; no record
    /// of the event is kept to block later pushes. `dataJSON` (the event's `--data`) is not stored. `event`
    /// follows the rule of `cancelOn` names (1–128 bytes, no control characters), else `.invalidArgument`.
    /// Events are per app: `track` from app A cancels nothing of app B (CONTRACT §4, §8).
    public func trackReporting(event: String, app: String = Engine.defaultApp, dataJSON: String?, now: Instant)
        throws(EngineError) -> CancelResult {
        try Cancellation.checkName(event, "event", maxBytes: PushDecoder.maxEventNameBytes)
        let reason = "event:" + event
        var unlisted = 0
        var result = try cancellation.cancelling(app: app, quota: quota, now: now, reason: reason) { (changes: inout ChangeSet) throws(EngineError) in
            try state.storage { () throws(StoreError) -> [String] in
                let (ids, rest) = try cancelJobParts.cancelCoverable(app: app, kind: .event, name: event, reason: reason, now: now,
                                                      changes: &changes) { (s) throws(StoreError) in
                    try store.tombstones.add(app: app, .id, s.id, at: now)
                }
                unlisted = rest
                return ids
            }
        }
        result.unlisted = unlisted
        return result
    }
}

/// The frame of the cancel calls and the two steps every cancellation shares (by id, run, event, a job's slice, a push's cancel): a part of
/// the engine over its one state (docs/architecture.md "The engine's parts").
struct Cancellation {
    let state: EngineState

    /// The frame of every cancellation: `body` runs in ONE store transaction (durable when this
    /// returns) and collects in its change set the ids whose notifications may be on screen; those are
    /// closed only after the commit, so a failed transaction closes nothing. Each one the notifier says was
    /// on screen gets history `closed` (with `reason`), committed before this returns. `quota` bounds what `body`
    /// may leave (`Quota.within`). O(body) plus one commit and O(closes) notifier calls.
    func cancelling(app: String, quota: Quota, now: Instant, reason: String,
                    _ body: (inout ChangeSet) throws(EngineError) -> [String]) throws(EngineError) -> CancelResult {
        state.lastNow = now
        let (ids, changes) = try state.transaction { (changes: inout ChangeSet) throws(StoreError) -> [String] in
            try state.wrap { () throws(EngineError) in
                try quota.within(app: app, what: "this cancel") { () throws(EngineError) in try body(&changes) }
            }
        }
        Snoozes(state: state).refreshDue()
        return CancelResult(cancelled: ids, closed: try closeShown(changes.closes, app: app, reason: reason, now: now))
    }

    /// The id rule of a push (`PushRules.identifier`) applied to an argument: `.invalidArgument`
    /// naming `argument` and the rule (`run: contains a control character`). O(length of `name`).
    static func checkName(_ name: String, _ argument: String, maxBytes: Int) throws(EngineError) {
        do throws(PushError) {
            try PushRules.identifier(name, argument, maxBytes: maxBytes)
        } catch {
            throw EngineError(.invalidArgument, error.message)
        }
    }

    /// Within a transaction: tombstone `id`, cancel it if pending (unless spared), close it if it may be shown
    /// (its id to `changes.closes`); returns the ids cancelled. Invariant: the tombstone is left even when
    /// nothing is pending (CONTRACT §1); a schedule a job covers is cancelled as the job does. O(log n).
    func cancelSchedules(app: String, id: String, reason: String, sparing: String?, now: Instant,
                         changes: inout ChangeSet) throws(EngineError) -> [String] {
        try storeCalls { () throws(StoreError) -> [String] in
            try state.store.tombstones.add(app: app, .id, id, at: now)
            try state.store.tombstones.purge(createdBefore: now.adding(seconds: -Engine.tombstoneRetentionSeconds))
            var pending = try state.store.schedules.schedule(app: app, id: id)
            // Covered by a cancellation job: cancelled by it (its reason and time), as if already done.
            if let s = pending, try CancelJobs(state: state).settleIfCovered(s, changes: &changes) { pending = nil }
            guard !isSpared(id, sparing) else { return [] }
            var ids: [String] = []
            if let s = pending {
                try cancelPending(s, reason: reason, now: now, changes: &changes)
                ids.append(id)
            } else if let done = try state.store.finished.record(app: app, id: id), done.outcome == .fired {
                changes.closes.append(id)
                try state.store.failedDeliveries.remove(app: app, id: id)
            }
            if try state.store.snoozed.remove(app: app, id: id) > 0, !changes.closes.contains(where: { sameName($0, id) }) {
                changes.closes.append(id)
            }
            return ids
        }
    }

    /// Within a transaction: tombstone `run` and cancel each of its pending schedules: the first
    /// `cancelFirstSlice` in due order now (their ids returned), the rest by a cancellation job (`unlisted`).
    /// With `sparing` (a push's own unchanged schedule, which a job could not leave out) all at once.
    /// Invariant: the run tombstone is left whatever is pending; a run matches exactly. O(run · log n) with
    /// `sparing`, else O(first slice · log n) plus counting what the job covers.
    func cancelSchedules(app: String, run: String, reason: String, sparing: String?, now: Instant,
                         changes: inout ChangeSet) throws(EngineError) -> (ids: [String], unlisted: Int) {
        try storeCalls { () throws(StoreError) -> (ids: [String], unlisted: Int) in
            try state.store.tombstones.add(app: app, .run, run, at: now)
            try state.store.tombstones.purge(createdBefore: now.adding(seconds: -Engine.tombstoneRetentionSeconds))
            var ids: [String] = [], unlisted = 0
            if let sparing {
                for s in try state.store.schedules.matching(app: app, run: run) where !isSpared(s.id, sparing) {
                    if try CancelJobs(state: state).settleIfCovered(s, changes: &changes) { continue }
                    try cancelPending(s, reason: reason, now: now, changes: &changes)
                    ids.append(s.id)
                }
                _ = try CancelJobs(state: state).settleIfCovered(app: app, id: sparing, changes: &changes)
            } else {
                (ids, unlisted) = try CancelJobs(state: state).cancelCoverable(app: app, kind: .run, name: run, reason: reason, now: now,
                                                      changes: &changes) { _ throws(StoreError) in }
            }
            let cancelled = Set(ids.map(StoredName.init))  // O(1) membership: a run of N is cancelled in O(N log N)
            for id in try state.store.finished.ids(app: app, run: run)
            where !isSpared(id, sparing) && !cancelled.contains(StoredName(id)) {
                if try state.store.finished.record(app: app, id: id)?.outcome == .fired {
                    changes.closes.append(id)
                    try state.store.failedDeliveries.remove(app: app, id: id)
                }
            }
            var closing = Set(changes.closes.map(StoredName.init))
            for id in try state.store.snoozed.ids(app: app, run: run) where !isSpared(id, sparing) {
                _ = try state.store.snoozed.remove(app: app, id: id)
                if closing.insert(StoredName(id)).inserted { changes.closes.append(id) }
            }
            return (ids, unlisted)
        }
    }

    /// Within a transaction: removes pending schedule `s` (its row, failed delivery and snoozed copy) with
    /// history `cancelled` (`reason`, at `now`), disarming it in `changes`; a calendar that already fired,
    /// a one-shot that fired under the id, or a snoozed copy may be on screen, so its id goes to
    /// `changes.closes`. Invariant: nothing of it reaches the wheel before COMMIT. O(log n).
    func cancelPending(_ s: StoredSchedule, reason: String, now: Instant, changes: inout ChangeSet) throws(StoreError) {
        let store = state.store
        try store.schedules.delete(s)
        changes.disarm(key: s.key)
        try store.failedDeliveries.remove(app: s.app, id: s.id)
        let snoozed = try store.snoozed.remove(app: s.app, id: s.id) > 0
        try store.history.append(HistoryRecord(
            app: s.app, id: s.id, event: .cancelled, at: now, due: s.next, reason: reason, lateSeconds: nil,
            title: s.title, messageId: s.messageId, dataJSON: s.dataJSON))
        let firedBefore = try store.finished.record(app: s.app, id: s.id)?.outcome == .fired
        if s.lastDue != nil || firedBefore || snoozed { changes.closes.append(s.id) }
    }

    /// After a cancel's COMMIT: asks the notifier to close each of `ids` of `app` and records history
    /// `closed` (`reason`) for those that were on screen, in one transaction; returns them, in order, each
    /// once. Invariant: called only after the cancel committed, so a failed cancel closes nothing.
    /// O(ids) notifier calls, O(closed · log n) store work.
    func closeShown(_ ids: [String], app: String, reason: String, now: Instant) throws(EngineError) -> [String] {
        // Each id once, by its bytes (the store's identity of an id; `Set<String>` would take `é` and
        // `e` + U+0301 for one id and leave the second on screen).
        var closed: [String] = [], seen = Set<StoredName>()
        for id in ids where seen.insert(StoredName(id)).inserted && state.notifier.close(app: app, id: id) {
            closed.append(id)
        }
        guard !closed.isEmpty else { return [] }
        let store = state.store
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            for id in closed {
                let finished = try store.finished.record(app: app, id: id)
                try store.history.append(HistoryRecord(
                    app: app, id: id, event: .closed, at: now, due: finished?.due, reason: reason, lateSeconds: nil,
                    title: nil, messageId: nil, dataJSON: nil))
            }
        }
        return closed
    }
}

extension Engine {
    var cancellation: Cancellation { Cancellation(state: state) }
}

/// Whether `id` is the schedule a cancel spares (a push's own), by bytes (`sameName`). O(length).
private func isSpared(_ id: String, _ sparing: String?) -> Bool {
    sparing.map { sameName(id, $0) } ?? false
}
