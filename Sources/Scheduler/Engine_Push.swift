import SchedCalendar

// Pushes: cancel first, then the idempotent upsert of `bk.local` (CONTRACT §1, §7 "Push answers").
extension Engine {
    var pushIngest: PushIngest { PushIngest(state: state, quota: quota) }

    /// Applies one push (cancel first, then local) in one transaction. Durable before it returns.
    ///
    /// Outcomes: one for `bk.cancel` (status `cancelled`, the ids it cancelled), then one for `bk.local`:
    /// - `cancelled`: a tombstone for its id or run blocks it (not one left by this push's own cancel);
    /// - `duplicate`: a pending schedule with the same id has the same fingerprint, or a finished one
    ///   (fired or missed) does — nothing changes, nothing is shown again;
    /// - `replaced`: a pending schedule with the same id but other content was replaced (history `replaced`
    ///   with the old due);
    /// - `missed`: an `at` already later than its grace (or a calendar with no occurrence left): history
    ///   `missed`, nothing shown;
    /// - `scheduled`: otherwise, including new content under the id of a one-shot that already fired.
    ///
    /// Everything is in `app`'s namespace (CONTRACT §8): ids, runs, tombstones, digests. A push that would
    /// add a pending schedule to an app that has `maxPendingPerApp` already is rejected with
    /// `.quotaExceeded` (the message names the bound) and changes nothing — its `bk.cancel` included.
    public func push(_ push: Push, app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> [PushOutcome] {
        try pushBatch([push], app: app, now: now)[0]
    }

    /// `push`, with `alongside` run in the same transaction after the push applied (e.g. the UnifiedPush
    /// connector recording the message in its replay window): both are durable together, or neither.
    public func push(_ push: Push, app: String = Engine.defaultApp, now: Instant,
                     alongside: () throws(StoreError) -> Void) throws(EngineError) -> [PushOutcome] {
        try pushIngest.pushAll([push], app: app, now: now, alongside: alongside).last ?? []
    }

    /// Applies many pushes of `app` in one group commit (one fsync); outcomes in input order. All or
    /// nothing: when the store fails, or any push is rejected (zone, quota), no push of the batch is applied.
    public func pushBatch(_ pushes: [Push], app: String = Engine.defaultApp, now: Instant) throws(EngineError) -> [[PushOutcome]] {
        try pushIngest.pushAll(pushes, app: app, now: now)
    }

    /// Applies many pushes of `app` in one group commit (one fsync), each on its own: a push rejected by
    /// the engine (over the quota, an unknown zone) changes nothing and is answered with its error, and
    /// the others are applied (NDJSON: that line only). A storage failure fails the whole batch (thrown).
    /// Each push runs in a savepoint, so a rejected one is undone without undoing the others (`push` and
    /// `pushBatch`, all or nothing, need at most one savepoint for the whole call: `failureUndoesCall`).
    public func pushEach(_ pushes: [Push], app: String = Engine.defaultApp, now: Instant)
        throws(EngineError) -> [Result<[PushOutcome], EngineError>] {
        try pushIngest.pushEach(pushes, app: app, now: now, allOrNothing: false)
    }
}
