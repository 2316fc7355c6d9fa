extension SQLiteScheduleStore {
    /// The store's write-ahead log (`<database>-wal`): what a COMMIT writes, and what a deferred sync
    /// (`committingWithoutSync`) must `fdatasync` before the transaction counts as durable.
    public var writeAheadLogPath: String { db.path + "-wal" }

    /// Runs `body` (one or more transactions) with `PRAGMA synchronous = OFF`: each COMMIT writes the
    /// log but does not sync it, so the caller must not report the transactions durable before an
    /// `fdatasync` of `writeAheadLogPath` that begins after `body` returns (docs/faults.md "Group
    /// commit"). Checkpoints run from this connection still sync (`finishCheckpoint`), so the log never
    /// restarts over frames that are not on the disk. OFF stays set when it returns (two group commits in
    /// a row cost no PRAGMA); the connection sets FULL again before any later statement that may begin a
    /// write outside such a section (`SQLiteConnection.syncBeforeWrite`), so every other path's commit is
    /// still durable when it returns. If OFF cannot be set, `body` runs with FULL (its commits synced) and
    /// `deferred` is false. Not reentrant; outside a transaction only. O(1) around `body`.
    public func committingWithoutSync<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> (result: R, deferred: Bool) {
        try db.withoutSyncAtCommit(body)
    }
}
