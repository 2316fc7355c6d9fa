extension SQLiteScheduleStore {
    /// The store's write-ahead log (`<database>-wal`): what a COMMIT writes, and what a deferred sync
    /// (`committingWithoutSync`) must `fdatasync` before the transaction counts as durable.
    public var writeAheadLogPath: String { db.path + "-wal" }

    /// Runs `body` (one or more transactions) with `PRAGMA synchronous = OFF`: each COMMIT writes the
    /// log but does not sync it, so the caller must not report the transactions durable before an
    /// `fdatasync` of `writeAheadLogPath` that begins after `body` returns (docs/faults.md "Group
    /// commit"). Checkpoints run from this connection still sync (`finishCheckpoint`), so the log never
    /// restarts over frames that are not on the disk. `synchronous = FULL` is back when it returns,
    /// whether `body` threw or not; if OFF cannot be set, `body` runs with FULL (its commits synced).
    /// Not reentrant; outside a transaction only. O(1) around `body`.
    public func committingWithoutSync<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> (result: R, deferred: Bool) {
        let deferred = (try? db.setSyncsAtCommit(false)) != nil
        defer { if deferred { restoreSyncAtCommit() } }
        return (try body(), deferred)
    }

    /// Back to `synchronous = FULL`, retried once: a connection left without sync at commit would make
    /// every other path's "durable when it returns" untrue, so a second failure closes the connection (the
    /// store then fails every call with a storage error, and the daemon's storage health reports it).
    private func restoreSyncAtCommit() {
        if (try? db.setSyncsAtCommit(true)) != nil || (try? db.setSyncsAtCommit(true)) != nil { return }
        db.close()
    }
}
