import SchedCalendar

// Sliced cancellation (docs/daemon-parts.md "Sliced cancellation"; issue 20 item 3): a Track or CancelRun
// over more than `cancelFirstSlice` schedules cancels the first slice and records a job (CancelJob) in ONE
// transaction, answers with the exact count, and the daemon cancels the rest `cancelSliceSize` at a time
// between other calls (`cancelSlice`). Until then every covered schedule behaves as cancelled: firing,
// pushing, replacing or cancelling one settles it first (`settleIfCovered`); listings leave it out and
// counts subtract the job's `remaining`.
extension Engine {
    /// Schedules cancelled by the answering transaction, and listed by its reply: one slice, so that the
    /// answer holds the loop no longer than a slice does (1,000 made a 1M Track's answer 0.65 s at load 8,
    /// during which another caller waited; BENCHMARKS.md §8).
    public static let cancelFirstSlice = 250
    /// Schedules per later slice: about 20 ms each in a release build (BENCHMARKS.md).
    public static let cancelSliceSize = 250
    /// Cancellation jobs one app may have under way (issue 31 item 3). A Track or CancelRun that needs one
    /// more is refused with `.quotaExceeded` naming the bound, and nothing of it is applied; the app's jobs
    /// finish in seconds (a slice of 250 per loop iteration), then it may cancel again. 16: a client that
    /// waits for its answers never has more than one; the bound keeps what a flood of calls leaves to the
    /// slicer (and to the app's own listings and firings, which check its jobs) small.
    public static let maxCancelJobsPerApp = 16

    /// What one slice did.
    public struct CancelSliceReport: Sendable, Hashable {
        public var app: String
        public var reason: String
        /// Schedules this slice cancelled.
        public var cancelled: Int
        /// Notifications that were on screen and were closed.
        public var closed: [String]
        /// The job is done (its row is gone).
        public var finished: Bool
    }

    /// Whether a cancellation job may be under way (the daemon then runs `cancelSlice` until it is false). O(1).
    public var hasCancelJobs: Bool { store.cancelJobs.mayExist }

    /// The app whose job the next `cancelSlice` works on (the oldest job's); nil when none exists (or the
    /// store cannot say: the slice itself then reports the failure). O(jobs).
    public var nextCancelJobApp: String? {
        guard store.cancelJobs.mayExist else { return nil }
        return try? store.cancelJobs.all().first?.app
    }

    var cancelJobParts: CancelJobs { CancelJobs(state: state) }

    /// The jobs under way, oldest first (tests, status). Reads only. O(jobs).
    public func cancelJobs() throws(EngineError) -> [CancelJob] {
        try state.storage { () throws(StoreError) in try store.cancelJobs.all() }
    }

    /// Cancels the next `limit` schedules of the oldest job in ONE transaction (history `cancelled` with
    /// the job's reason and time, an id tombstone each for an event), and removes the job when it covers no
    /// more; nil when no job exists. Closes what was on screen after the commit. O(limit · log n)
    /// (`CancelJobs.slice`).
    public func cancelSlice(limit: Int = Engine.cancelSliceSize, now: Instant) throws(EngineError) -> CancelSliceReport? {
        try cancelJobParts.slice(limit: limit, now: now)
    }
}

/// The cancellation jobs (docs/daemon-parts.md "Sliced cancellation"): a part of the engine over its one
/// state. Writes `cancel_jobs` and, through `Cancellation`, what a cancel writes; reads nothing of an app
/// that has no job (`CancelJobTable.covering` is per app).
struct CancelJobs {
    let state: EngineState
    var store: SQLiteScheduleStore { state.store }
    var cancellation: Cancellation { Cancellation(state: state) }

    /// Cancels the next `limit` schedules of the oldest job in ONE transaction and removes the job when it
    /// covers no more; nil when no job exists. Invariants: first closes what earlier settling left on
    /// screen (`closeSettled`); what this slice finds on screen is closed after its COMMIT; the job's
    /// `remaining` and the cached "may exist" follow the commit. O(limit · log n).
    func slice(limit: Int, now: Instant) throws(EngineError) -> Engine.CancelSliceReport? {
        try closeSettled(now: now)
        guard store.cancelJobs.mayExist else { return nil }
        let store = self.store
        let (report, changes) = try state.transaction { (changes: inout ChangeSet) throws(StoreError) -> Engine.CancelSliceReport? in
            guard let job = try store.cancelJobs.all().first else { return nil }
            let rows = try store.cancelJobs.nextCovered(job, limit: limit)
            for s in rows { try cancelCovered(s, by: job, changes: &changes) }
            let finished = rows.count < limit
            if finished { try store.cancelJobs.delete(job.n) } else { try store.cancelJobs.progress(job.n, cancelled: rows.count) }
            return Engine.CancelSliceReport(app: job.app, reason: job.reason, cancelled: rows.count, closed: [], finished: finished)
        }
        if report?.finished ?? true { try storeCalls { () throws(StoreError) in try store.cancelJobs.refresh() } }
        guard var report else { return nil }
        Snoozes(state: state).refreshDue()
        report.closed = try cancellation.closeShown(changes.closes, app: report.app, reason: report.reason, now: now)
        return report
    }

    /// Within a transaction: when a job covers `s`, cancels it as that job does (and counts it done);
    /// true when it did. Invariant: a covered schedule is never fired, listed or replaced as pending.
    /// One lookup per job of `s`'s app when jobs exist, nothing otherwise.
    func settleIfCovered(_ s: StoredSchedule, changes: inout ChangeSet) throws(StoreError) -> Bool {
        try settlingJob(s, changes: &changes) != nil
    }

    /// `settleIfCovered`, returning the job that covered `s`.
    private func settlingJob(_ s: StoredSchedule, changes: inout ChangeSet) throws(StoreError) -> CancelJob? {
        guard store.cancelJobs.mayExist, let job = try store.cancelJobs.covering(app: s.app, id: s.id, key: s.key) else { return nil }
        try cancelCovered(s, by: job, changes: &changes)
        try store.cancelJobs.progress(job.n, cancelled: 1)
        return job
    }

    /// `settleIfCovered` for the pending schedule `id` of `app`, if any. O(log n).
    func settleIfCovered(app: String, id: String, changes: inout ChangeSet) throws(StoreError) -> Bool {
        guard store.cancelJobs.mayExist, let s = try store.schedules.schedule(app: app, id: id) else { return false }
        return try settleIfCovered(s, changes: &changes)
    }

    /// `settleIfCovered` outside a cancel call (firing, pushing, unblocking): what may be on screen goes to
    /// `changes.settled` with the job's reason, closed by `closeSettled` once the transaction committed.
    func settleCovered(_ s: StoredSchedule, changes: inout ChangeSet) throws(StoreError) -> Bool {
        var own = ChangeSet()
        guard let job = try settlingJob(s, changes: &own) else { return false }
        changes.settled += own.closes.map { (s.app, $0, job.reason) }
        own.closes = []
        changes.append(own)
        return true
    }

    /// Cancels `s` as `job` does: at the job's instant, with its reason (an id tombstone for an event job; a
    /// run job's tombstone was left by its call).
    private func cancelCovered(_ s: StoredSchedule, by job: CancelJob, changes: inout ChangeSet) throws(StoreError) {
        try cancellation.cancelPending(s, reason: job.reason, now: job.at, changes: &changes)
        if job.kind == .event { try store.tombstones.add(app: s.app, .id, s.id, at: job.at) }
    }

    /// Within a transaction: cancels the schedules of `app` that (`kind`, `name`) covers now (none an older
    /// job covers), returning the ids of the first `Engine.cancelFirstSlice` in due order and how many more
    /// a job now covers. `perRow` runs for each one cancelled at once (the event's id tombstone).
    /// Invariant: an app never has more than `Engine.maxCancelJobsPerApp` jobs (the call that would need
    /// one more is refused whole, `.quotaExceeded`). O(covered) to count, O(first slice · log n) to cancel.
    func cancelCoverable(app: String, kind: CancelJob.Kind, name: String, reason: String, now: Instant,
                         changes: inout ChangeSet, perRow: (StoredSchedule) throws(StoreError) -> Void)
        throws(StoreError) -> (ids: [String], unlisted: Int) {
        let bound = try store.cancelJobs.bound()
        let count = try store.cancelJobs.countCoverable(app: app, kind: kind, name: name, bound: bound)
        guard count > 0 else { return ([], 0) }
        let most = Engine.maxCancelJobsPerApp
        if count > Engine.cancelFirstSlice, try store.cancelJobs.count(app: app) >= most {
            throw StoreError(carrying: EngineError(.quotaExceeded, "app \(app) has \(most) "
                + "cancellation jobs under way, the most allowed (cancel-jobs-per-app \(most)); "
                + "this one covers \(count) schedules: try again when they are done"))
        }
        let first = try store.cancelJobs.firstCoverable(app: app, kind: kind, name: name, bound: bound, covered: count,
                                                        limit: Engine.cancelFirstSlice)
        for s in first {
            try cancellation.cancelPending(s, reason: reason, now: now, changes: &changes)
            try perRow(s)
        }
        let rest = count - first.count
        if rest > 0 {
            _ = try store.cancelJobs.add(CancelJob(n: 0, app: app, kind: kind, name: name, reason: reason, at: now,
                                                   bound: bound, remaining: rest))
        }
        return (first.map(\.id), rest)
    }

    /// Closes what settling covered schedules outside a cancel call (firing, pushing) found on screen,
    /// from committed transactions only (`EngineState.settledCloses`), and forgets them. O(closes).
    func closeSettled(now: Instant) throws(EngineError) {
        guard !state.settledCloses.isEmpty else { return }
        let closes = state.settledCloses
        state.settledCloses.removeAll()
        for (app, ids) in Dictionary(grouping: closes, by: \.app) {
            _ = try cancellation.closeShown(ids.map(\.id), app: app, reason: ids.first?.reason ?? "cancelled", now: now)
        }
    }
}
