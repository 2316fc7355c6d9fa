import ScheddSystem

// Commits synced later (docs/store.md "Commits synced off the loop"): the group commit's transactions
// commit under `synchronous = NORMAL` — written to the log and visible at once, consistent after a crash
// (SQLite's WAL guarantee under NORMAL: checkpoints still sync the log before copying it and the database
// file after), but not yet durable — and the daemon answers their calls only after its own `fdatasync` of
// the log (`WALSync`), made on another thread while the loop goes on with the next calls. Every other
// transaction keeps `synchronous = FULL`, whose fsync at commit also makes every earlier commit durable.

extension SQLiteScheduleStore {
    /// The write-ahead log's path: the database's, with `-wal` (SQLite's name for it).
    public var logPath: String { db.path + "-wal" }

    /// `transaction`, except that its commit is not synced: when this returns the change is visible and
    /// in the log, and it is durable once `WALSync.sync` (or any later synced commit) has returned. Nested:
    /// joins the outer transaction, synced as that one is. O(1) beyond `transaction`: two cached PRAGMAs.
    public func transactionSyncedLater<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        guard !db.inTransaction else { return try transaction(body) }
        try sql { () throws(SQLiteError) in try db.statement("PRAGMA synchronous = NORMAL").run() }
        defer { restoreFullSync() }
        return try transaction(body)
    }

    /// Back to `synchronous = FULL`. Setting a pragma does no I/O, so this does not fail in practice; if it
    /// did, every commit would be unsynced until the next attempt succeeded: that is fatal for durability, so
    /// the connection is closed (every later call fails with a storage error and the daemon exits).
    private func restoreFullSync() {
        do throws(SQLiteError) {
            try db.statement("PRAGMA synchronous = FULL").run()
        } catch {
            db.close()
        }
    }
}

/// A descriptor on the store's write-ahead log, to make the commits of `transactionSyncedLater` durable
/// from any thread: `fdatasync(2)` flushes every write to the file, whichever descriptor made it. SQLite
/// keeps the log file (same inode: a checkpoint's truncation keeps it) as long as one of its connections
/// is open, so the descriptor stays valid for the store's lifetime.
public final class WALSync: Sendable {
    private let descriptor: FileDescriptor

    /// Opens `store`'s log (read-only: syncing needs no write access). Fails when it does not exist.
    public init(store: SQLiteScheduleStore) throws(StoreError) {
        do {
            descriptor = try FileDescriptor.open(store.logPath, .readOnly)
        } catch {
            throw StoreError(.unavailable, "cannot open the write-ahead log \(store.logPath) to sync it: \(error)")
        }
    }

    deinit { descriptor.close() }

    /// Makes every commit written to the log before this call durable; on failure says why (the commits
    /// may or may not be on disk: the kernel reports a failed writeback once).
    public func sync() throws(StoreError) {
        do throws(Errno) {
            try descriptor.syncData()
        } catch {
            throw StoreError(.io, "cannot make the commit durable: fdatasync of the write-ahead log failed: \(error)")
        }
    }
}
