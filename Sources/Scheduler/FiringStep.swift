import SchedCalendar

/// One firing decided and recorded, waiting to be handed to the notifier (`HandOver.deliver`).
struct Firing {
    var notification: DueNotification
    var graceSeconds: Int64?
    /// Its `fired` record (marked `folded` when it goes into a summary).
    var historySeq: Int64 = 0

    /// Whether something due at `due` and shown at `at` is within `graceSeconds` (equal is within).
    /// Saturates for huge graces instead of overflowing. O(1).
    static func isWithinGrace(due: Instant, at: Instant, graceSeconds: Int64) -> Bool {
        let lateness = at.microseconds &- due.microseconds
        return lateness <= min(graceSeconds, Int64.max / 2_000_000) * 1_000_000
    }

    /// Seconds between two instants, as history's `late`. O(1).
    static func seconds(from start: Instant, to end: Instant) -> Double {
        Double(end.microseconds - start.microseconds) / 1_000_000
    }
}

// Moving time: firing due schedules in due order, late/missed, repeats, delivery and retries (CONTRACT §3).
extension Engine {
    /// The firing part with the engine's folding rule and retention as they stand now. O(1).
    var firing: FiringStep { FiringStep(state: state, folding: folding, maintenance: maintenance) }

    /// Moves to `now`, delivering what is due (see `AdvanceMode`); returns what was handed to the
    /// notifier, in order. Delivered and recorded before it returns.
    ///
    /// Each entry is decided at its *firing instant* `f`: in `.wallClock` mode `f = now`; in `.timePassing`
    /// mode `f = max(due, start)` where `start` is the `now` of the previous call (entries already late at
    /// `start` — restored after a restart, or pushed late — are late by `start - due`). Late by at most the
    /// grace (inclusive) → `fired` with that lateness; beyond → `missed`. A calendar late at `f` fires once for
    /// all its occurrences up to `f` (the latest one within grace, else one `missed`), then continues with
    /// its first elapse after `f`; in `.timePassing` mode every occurrence after `start` fires on time.
    ///
    /// Entries are processed in (due, key) order, occurrences produced on the way included. Every batch of
    /// up to `firingBatchSize` decisions is committed in ONE transaction *before* its notifications are
    /// shown (at-most-once: see the type's documentation); each firing's `fired` record awaits its hand-over,
    /// confirmed by the next commit (`HistoryTable.confirmHandOver`), so after a crash the restarted engine
    /// marks the ones it cannot confirm `unconfirmed`. Entries due less than `onTimeMicroseconds` before `now`
    /// are batches of one (at most one unconfirmed per crash on the real clock); others batches of up to
    /// `firingBatchSize` (the bound of a catch-up). A step backwards fires nothing already fired.
    ///
    /// **Slices.** With `maxBatches`, at most that many batches are decided and delivered; what is still due
    /// goes back into the wheel (so `nextDue <= now` and `isAdvancing` tell the caller to call again), and
    /// the next call goes on from the same `start` — the event loop interleaves bus traffic between slices
    /// without changing any decision. A sliced advance is finished when a call leaves nothing due.
    @discardableResult
    public func advance(to now: Instant, mode: AdvanceMode, maxBatches: Int = .max) throws(EngineError)
        -> [DueNotification] {
        let delivered = try firing.advance(to: now, mode: mode, maxBatches: maxBatches)
        if !isAdvancing { lateCause = .delayed }  // this catch-up is done; its cause explains no later one
        return delivered
    }
}

/// Firing (CONTRACT §3): a part of the engine over its one state (docs/architecture.md "The engine's
/// parts"). `advance` takes what is due from the wheel into a `DueQueue`, decides each entry in batches of
/// one transaction (`fire`: history, the row's next due or its end through `Endings`), folds late ones
/// (`Folding`), hands the committed firings over (`HandOver`), settles cancellation jobs (`CancelJobs`)
/// and runs maintenance (`Maintenance`) between batches. Not thread-safe: the engine's loop thread only.
struct FiringStep {
    let state: EngineState
    /// The folding rule of the batches this advance decides.
    let folding: Folding
    /// Retention between batches and at the end.
    let maintenance: Maintenance

    private var store: SQLiteScheduleStore { state.store }
    private var resolution: ZoneResolution { ZoneResolution(state: state) }
    private var cancelJobs: CancelJobs { CancelJobs(state: state) }
    private var handOver: HandOver { HandOver(state: state) }

    /// `Engine.advance(to:mode:maxBatches:)` (its documentation states the rules). Invariant: every batch is
    /// committed before its firings are handed over; on a failed batch every uncommitted entry goes back into
    /// the wheel. O(due entries · log n) store work, batches of at most `Engine.firingBatchSize`.
    func advance(to now: Instant, mode: AdvanceMode, maxBatches: Int) throws(EngineError) -> [DueNotification] {
        let start = min(state.sliceStart ?? state.lastNow, now), previousNow = state.lastNow
        state.lastNow = now
        var queue = DueQueue(ascending: state.wheel.advance(to: now))
        var delivered: [DueNotification] = []
        var batches = 0
        while !queue.isEmpty && batches < maxBatches {
            batches += 1
            var firings: [Firing] = []
            // What fell due just now (the real clock's timer) is committed and handed over one firing at a
            // time, so a crash leaves at most that one unconfirmed; a catch-up or a long span goes in batches.
            let batchLimit = queue.first.map { now.microseconds &- $0.due.microseconds < Engine.onTimeMicroseconds }
                ?? false ? 1 : Engine.firingBatchSize
            var taken: [(key: Int64, due: Instant)] = []
            do {
                _ = try state.transaction { (changes: inout ChangeSet) throws(StoreError) in
                    while taken.count < batchLimit, let entry = queue.popFirst() {
                        taken.append(entry)
                        guard let s = try store.schedules.schedule(key: entry.key) else { continue }
                        if store.cancelJobs.mayExist, try cancelJobs.settleCovered(s, changes: &changes) { continue }  // cancelled, not fired
                        try state.wrap { () throws(EngineError) in
                            try fire(s, start: start, now: now, mode: mode, queue: &queue, firings: &firings, changes: &changes)
                        }
                    }
                    try store.history.markFolded(folding.foldLate(&firings, now: now))
                }
            } catch {
                // Rolled back: every entry not yet committed goes back into the wheel as the store still has
                // it — what is left of the queue, then this batch's entries (their committed dues win over
                // occurrences the failed batch queued for the same keys). O(entries put back).
                for entry in queue.elements { state.wheel.insert(key: entry.key, due: entry.due) }
                for entry in taken { state.wheel.insert(key: entry.key, due: entry.due) }
                if delivered.isEmpty { state.lastNow = previousNow }  // nothing happened: a retry is the same advance
                if !delivered.isEmpty || state.sliceStart != nil { state.sliceStart = start }  // a retry goes on from `start`
                throw error
            }
            delivered += try handOver.deliver(firings, now: now)
            try cancelJobs.closeSettled(now: now)
            // Between batches, at the instant reached so far: a long span keeps its history bounded as it goes.
            try maintenance.ifDue(now: mode == .wallClock ? now : min(now, firings.last?.notification.at ?? now))
        }
        // An unfinished slice: the rest waits in the wheel (overdue) for the next call, from `start`.
        for entry in queue.elements { state.wheel.insert(key: entry.key, due: entry.due) }
        state.sliceStart = queue.isEmpty ? nil : start
        if state.sliceStart == nil { delivered += try handOver.deliver(try Snoozes(state: state).takeDue(now: now), now: now) }
        try maintenance.ifDue(now: now)
        return delivered
    }

    /// The latest occurrence of calendar `s` at or before `at`, given that `due` (≤ `at`) is one: found
    /// backwards from `at` in doubling windows (1 min, 2 min, …) and then forwards inside the first window
    /// that holds one, so a per-minute schedule down for a year costs a few elapses, not 500,000; the
    /// forward walk covers at most the occurrences of a window whose later half has none.
    private func latestOccurrence(_ s: StoredSchedule, atOrBefore at: Instant, from due: Instant) throws(EngineError) -> Instant {
        var width: Int64 = 60_000_000
        var start = due
        while true {
            let (candidate, overflow) = at.microseconds.subtractingReportingOverflow(width)
            if overflow || candidate <= due.microseconds { break }
            if let first = try resolution.nextElapse(s, after: Instant(microseconds: candidate - 1)), first <= at {
                start = first
                break
            }
            width = width > Int64.max / 4 ? Int64.max / 2 : width * 2
        }
        return try latestElapse(s, from: start, through: at)
    }

    /// The latest occurrence in [`occurrence`, `at`] of the chain starting at occurrence `occurrence`
    /// (itself ≤ `at`). Walks the chain for up to 64 steps (exact, the common case: a grace window holds
    /// few occurrences); past that, binary-searches the instant `x` where `nextElapse(after: x)` passes
    /// `at` — O(log(range in µs)) ≤ 64 more elapse searches instead of one per missed occurrence (a
    /// per-second calendar down for a week would otherwise walk 600,000 of them).
    func latestElapse(_ s: StoredSchedule, from occurrence: Instant, through at: Instant) throws(EngineError) -> Instant {
        var latest = occurrence
        for _ in 0..<64 {
            guard let later = try resolution.nextElapse(s, after: latest), later <= at else { return latest }
            latest = later
        }
        // Invariant: nextElapse(after: low - 1µs) ≤ at (it is `low` itself or later), nextElapse(after: high - 1µs) > at.
        var low = latest.microseconds, high = at.microseconds &+ 1
        while high &- low > 1 {
            let mid = low + (high - low) / 2
            if let e = try resolution.nextElapse(s, after: Instant(microseconds: mid - 1)), e <= at { low = mid } else { high = mid }
        }
        return try resolution.nextElapse(s, after: Instant(microseconds: low - 1)).flatMap { $0 <= at ? $0 : nil } ?? latest
    }

    /// Decides one due schedule inside the batch transaction: records history, updates or removes the row,
    /// re-queues (time passing) or re-arms (wheel) the next occurrence.
    private func fire(_ stored: StoredSchedule, start: Instant, now: Instant, mode: AdvanceMode,
                      queue: inout DueQueue, firings: inout [Firing], changes: inout ChangeSet) throws(EngineError) {
        var s = stored
        let due = s.next
        let late = mode == .wallClock || due < start
        let at = mode == .wallClock ? now : max(due, start)
        var occurrence = due
        var next: Instant?
        var reason: String?
        if s.kind == .calendar {
            do throws(EngineError) {
                if late {
                    // Collapse every occurrence up to `at` into one: the latest within grace, if any.
                    let windowStart = max(due, at.adding(seconds: -min(state.grace(of: s), Int64.max / 2_000_000)))
                    if let first = try resolution.nextElapse(s, after: windowStart.adding(microseconds: -1)), first <= at {
                        occurrence = try latestElapse(s, from: first, through: at)
                    } else {
                        // None within grace: the one `missed` record names the latest missed occurrence (§3).
                        occurrence = try latestOccurrence(s, atOrBefore: at, from: due)
                    }
                    next = try resolution.nextElapse(s, after: at)
                } else {
                    next = try resolution.nextElapse(s, after: due)
                }
            } catch {
                // The stored expression or its zone no longer evaluates (e.g. the zone left tzdata): this
                // occurrence is decided as usual and the schedule ends, rather than wedging every advance.
                next = nil
                reason = "schedule ended: \(error.message)"
            }
        }
        let shown = Firing.isWithinGrace(due: occurrence, at: at, graceSeconds: state.grace(of: s))
        let lateness = Firing.seconds(from: occurrence, to: at)
        var historySeq: Int64 = 0
        if s.extras.wake { state.wakeMayHaveChanged = true }
        try state.storage { () throws(StoreError) in
            try store.history.append(HistoryRecord(
                app: s.app, id: s.id, event: shown ? .fired : .missed, at: at, due: occurrence, reason: reason,
                lateSeconds: lateness, title: s.title, messageId: s.messageId, dataJSON: s.dataJSON),
                awaitingHandOver: shown)
            historySeq = store.history.lastAppendedSeq
            if let next {
                s.next = next
                s.lastDue = occurrence
                try store.schedules.updateNext(key: s.key, next: next, lastDue: occurrence)
                if next <= now {
                    queue.push((s.key, next))
                } else {
                    changes.arm(key: s.key, due: next)
                }
            } else if s.kind == .calendar {
                // The last occurrence: the calendar leaves the pending set, and says why.
                s.lastDue = occurrence
                try Endings(state: state).expire(s, now: at, reason: reason.map { _ in "schedule ended" })
            } else {
                try store.schedules.delete(s)
                try Endings(state: state).recordFinished(s, outcome: shown ? .fired : .missed, due: occurrence, now: now)
            }
        }
        guard shown else { return }
        var notification = DueNotification(
            app: s.app, id: s.id, runId: s.runId, title: s.title, body: s.body, urgency: s.urgency, icon: s.icon,
            category: s.category, actions: s.actions, dataJSON: s.dataJSON, messageId: s.messageId,
            due: occurrence, at: at, lateSeconds: lateness, graceSeconds: s.graceSeconds)
        notification.extras = s.extras
        firings.append(Firing(notification: notification, graceSeconds: s.graceSeconds, historySeq: historySeq))
    }
}
