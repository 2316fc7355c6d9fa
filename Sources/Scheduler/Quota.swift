import SchedCalendar

/// The per-app quota (CONTRACT §8 "Quota") over the store: pending schedules and stored bytes. A value
/// built per call from the engine's settings (`Engine.quota`); it reads the store's kept totals and, the
/// one write, makes room in an app's history. Called only inside a write's transaction (or savepoint), so
/// what it removes is undone with a refused call.
struct Quota {
    let store: SQLiteScheduleStore
    /// Pending schedules per app at most (≥ 1).
    let maxPending: Int
    /// Stored bytes per app at most (≥ 1).
    let maxBytes: Int

    /// `.quotaExceeded` unless `app` may hold `bytes` more stored bytes (and, `countingOne`, one more pending
    /// schedule); the message names the bound (count or bytes). The bytes are everything the app stores
    /// (`StoredTotals`, schema 9): pending schedules, finished records, digests, tombstones, cancellation
    /// jobs — and history, which gives way: when the rest leaves room, the app's oldest history records are
    /// removed to make it (the only write here, done only when the call will pass). Two key lookups, plus
    /// O(log n) per history record removed.
    func check(app: String, adding bytes: Int, countingOne: Bool = true) throws(EngineError) {
        let (count, totals) = try storeCalls { () throws(StoreError) -> (Int, StoredTotals) in
            let totals = try store.counts.storedTotals(app: app), covered = try store.cancelJobs.coveredRemaining(app: app)
            return (totals.pendingCount - covered, totals)
        }
        if countingOne && count >= maxPending {
            throw EngineError(.quotaExceeded, "app \(app) has \(count) pending schedules, the most allowed "
                + "(max-pending-per-app \(maxPending)); cancel some first")
        }
        guard bytes > 0 else { return }
        if totals.firm + bytes > maxBytes { throw overBytes(app: app, totals, adding: bytes, what: "this one") }
        let excess = totals.all + bytes - maxBytes
        if excess > 0 { try storeCalls { () throws(StoreError) in try store.history.makeRoom(app: app, bytes: excess) } }
    }

    /// Runs `body` (a cancellation, inside a transaction or savepoint that a throw undoes) and refuses it
    /// with `.quotaExceeded` when it cancelled no pending schedule of `app` yet left the app's stored bytes
    /// (history aside) above `maxBytes` and higher than before: a cancel of unknown ids or runs leaves
    /// tombstones, and they count (CONTRACT §8 "Quota"). A cancel that removes a schedule always passes, so
    /// an app at its bound can make room. Then history gives way as in `check`. Two key lookups before and
    /// after.
    func within<R>(app: String, what: String, _ body: () throws(EngineError) -> R) throws(EngineError) -> R {
        let before = try storeCalls { () throws(StoreError) in try store.counts.storedTotals(app: app) }
        let result = try body()
        let after = try storeCalls { () throws(StoreError) in try store.counts.storedTotals(app: app) }
        if after.firm > maxBytes && after.firm > before.firm && after.pendingCount >= before.pendingCount {
            throw overBytes(app: app, before, adding: after.firm - before.firm, what: what)
        }
        let excess = after.all - maxBytes
        if excess > 0 { try storeCalls { () throws(StoreError) in try store.history.makeRoom(app: app, bytes: excess) } }
        return result
    }

    /// The refusal naming the byte bound and what the app's bytes are in.
    private func overBytes(app: String, _ totals: StoredTotals, adding bytes: Int, what: String) -> EngineError {
        EngineError(.quotaExceeded, "app \(app) has \(totals.firm) bytes stored (\(totals.pendingBytes) in pending "
            + "schedules, \(totals.keptBytes) in finished records, digests, tombstones and cancellation jobs); "
            + "\(what) (\(bytes) bytes) would exceed the most allowed (max-bytes-per-app \(maxBytes)); "
            + "cancel some first")
    }
}

extension Engine {
    /// The quota as it stands now (`maxPendingPerApp`, `maxBytesPerApp`). O(1).
    var quota: Quota { Quota(store: store, maxPending: maxPendingPerApp, maxBytes: maxBytesPerApp) }
}
