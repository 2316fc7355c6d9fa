import SchedCalendar

/// The store: one SQLite database file in WAL mode, durable at every commit, and its tables.
///
/// Shape (docs/store.md "Parts"): this type owns the connection (`StoreConnection`: the statement cache,
/// the app numbers) and the transactions; each table or role is a small type over that one connection,
/// reached as a property — `schedules` (`ScheduleTable`), `counts` (`PendingCounts`), `history`,
/// `tombstones`, `finished`, `applied`, `cancelJobs`, `failedDeliveries`, `snoozed`, `meta`,
/// `registrations`, `pushReplays`. Every table's call runs inside the current transaction when one is
/// open, else alone (autocommit). Not thread-safe. There is deliberately one implementation and no
/// protocol in front of it: a second (in-memory) store drifted from it with every schema step and was
/// removed (docs/testing.md, "One store").
///
/// Durability: `PRAGMA synchronous = FULL` is what makes a committed transaction survive power loss.
/// In WAL mode SQLite fsyncs the WAL file at every commit only under FULL; under NORMAL it fsyncs only at
/// checkpoints, so the last transactions can vanish on power loss (they do survive a `kill -9`, since
/// the OS still holds the writes). Every operation is one `BEGIN IMMEDIATE … COMMIT`, so the caller
/// answers only after its effect is on disk; `transaction` nests, so a batch of pushes shares one commit
/// (one fsync) — group commit.
///
/// Opening never creates a database over something else: a missing file is created empty (mode 0600),
/// an existing one must pass `PRAGMA quick_check` and carry a schedd schema; otherwise `StoreError.corrupt`
/// or `.unavailable` says why and the file is left untouched.
public final class SQLiteScheduleStore {
    let connection: StoreConnection
    var db: SQLiteConnection { connection.db }
    public let counts: PendingCounts
    public let cancelJobs: CancelJobTable
    public let schedules: ScheduleTable
    public let history: HistoryTable
    public let tombstones: TombstoneTable
    public let finished: FinishedTable
    public let applied: AppliedTable
    public let failedDeliveries: FailedDeliveryTable
    public let snoozed: SnoozedTable
    public let meta: MetaTable
    public let registrations: RegistrationTable
    public let pushReplays: PushReplayTable
    /// The log's frames when the daemon checkpoints from another thread (SQLiteScheduleStore_Checkpoint.swift).
    var walFrames: WALFrames?
    /// Whether the previous run ended without closing the database (its write-ahead log was still there
    /// when this one opened): then the caller should run `integrityCheck` (off the critical path).
    public let openedAfterUncleanShutdown: Bool
    /// The page size of a new database (bytes). 8 KiB, not SQLite's 4 KiB: fewer page headers, cell
    /// pointers and half-empty B-tree pages per row (docs/store.md, "Page size": −4.8 B per schedule at 1M);
    /// a random single-row commit writes 8 KiB WAL frames instead of 4 KiB.
    public static let pageSize = 8192

    /// Opens (creating when missing) the database at `path`.
    public init(path: String) throws(StoreError) {
        try StorePath.createIfMissing(path)
        // SQLite deletes the WAL when the last connection closes cleanly; one still there (with frames)
        // means a crash, a kill or power loss — or another connection open right now.
        openedAfterUncleanShutdown = StorePath.nonEmptyFileExists(path + "-wal")
        let db: SQLiteConnection
        do {
            db = try SQLiteConnection(openingExisting: path)
        } catch {
            throw StoreError(.unavailable, error)
        }
        try Self.check(db)
        connection = StoreConnection(db)
        counts = PendingCounts(connection)
        cancelJobs = CancelJobTable(connection, counts: counts)
        schedules = ScheduleTable(connection, counts: counts, cancelJobs: cancelJobs)
        history = HistoryTable(connection, counts: counts)
        tombstones = TombstoneTable(connection)
        finished = FinishedTable(connection)
        applied = AppliedTable(connection)
        failedDeliveries = FailedDeliveryTable(connection)
        snoozed = SnoozedTable(connection)
        meta = MetaTable(connection)
        registrations = RegistrationTable(connection)
        pushReplays = PushReplayTable(connection)
        do throws(SQLiteError) {
            try db.execute("PRAGMA busy_timeout = 5000")
            // A new database (no page written yet) gets `pageSize` pages. Only now: SQLite cannot change the
            // page size of a WAL database (not even by VACUUM), so an existing file keeps its own (4 KiB
            // before this; docs/store.md, "Page size").
            let pages = try db.statement("PRAGMA page_count")
            let isNew = try pages.step() && pages.int64(0) == 0
            pages.reset()
            if isNew { try db.execute("PRAGMA page_size = \(Self.pageSize)") }
            let mode = try db.statement("PRAGMA journal_mode = WAL")
            let journal = try mode.step() ? mode.string(0) : ""
            mode.reset()
            guard journal == "wal" else {
                throw SQLiteError(code: 0, message: "journal_mode is \(journal), not wal", context: "open \(path)")
            }
            // FULL: fsync the WAL at every commit (see the type's documentation). NORMAL would not.
            try db.execute("PRAGMA synchronous = FULL")
            // Savepoint sub-journals stay in memory up to `SQLiteConnection.statementJournalSpill` (120 KiB, one
            // chunk), set process-wide; `temp_store = MEMORY` is not used: with it SQLite ignores that setting
            // and grows every sub-journal by 1 KiB mallocs (~23k instructions per push in a savepoint).
            // After a checkpoint the WAL file is truncated to at most this (it would otherwise keep its peak).
            try db.execute("PRAGMA journal_size_limit = 4194304")
        } catch {
            db.close()
            throw StoreError(.io, error)
        }
        do {
            try StoreSchema.migrate(db)
            try cancelJobs.refresh()
        } catch {
            db.close()
            throw error
        }
    }

    /// Refuses files that are not SQLite or belong to another program. The full integrity check is not
    /// run here (it reads every page: 0.66 s at 1M schedules): see `integrityCheck` and docs/store.md.
    private static func check(_ db: SQLiteConnection) throws(StoreError) {
        var tableCount: Int64 = 0, verdict = "ok", userVersion: Int64 = 0
        do throws(SQLiteError) {
            let tables = try db.statement("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
            if try tables.step() { tableCount = tables.int64(0) }
            tables.reset()
            // The header and the schema pages are read here: a file whose first page is damaged fails now.
            let pages = try db.statement("PRAGMA page_count")
            if try pages.step(), pages.int64(0) < 1, tableCount > 0 { verdict = "no pages" }
            pages.reset()
            let version = try db.statement("PRAGMA user_version")
            if try version.step() { userVersion = version.int64(0) }
            version.reset()
        } catch {
            db.close()
            // SQLITE_NOTADB (26) and SQLITE_CORRUPT (11): the bytes are not a usable database.
            let primary = error.code & 0xFF
            let kind: StoreError.Kind = primary == 26 || primary == 11 ? .corrupt : .unavailable
            throw StoreError(kind, "\(db.path) cannot be read as a schedd database: \(error.message)")
        }
        guard verdict == "ok" else {
            db.close()
            throw StoreError(.corrupt, "\(db.path) is corrupt (quick_check: \(verdict)); not opening it")
        }
        if userVersion == 0 && tableCount > 0 {
            db.close()
            throw StoreError(.corrupt, "\(db.path) is a SQLite database of another program (no schedd schema)")
        }
    }

    /// Closes the database; a hand-over confirmation still pending is committed first (best effort).
    public func close() {
        if db.isOpen && history.confirmable != nil { _ = try? transaction { () throws(StoreError) in } }
        db.close()
    }

    // MARK: Transactions

    /// Runs `body` in one transaction, committed durably before this returns; rolled back when it throws.
    /// Nested calls join the outermost transaction (group commit for batches).
    public func transaction<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        if connection.transactionDepth > 0 {
            connection.transactionDepth += 1
            defer { connection.transactionDepth -= 1 }
            return try body()
        }
        try sql { () throws(SQLiteError) in try db.statement("BEGIN IMMEDIATE").run() }
        connection.transactionDepth = 1
        let result: R
        let confirming = history.confirmable, awaiting = history.awaitingSince
        do throws(StoreError) {
            try sql { () throws(SQLiteError) in try history.writePendingConfirmation() }
            result = try body()
            // A failure the body caught and went on from may have cost the whole transaction.
            if connection.transactionLost { throw StoreConnection.lostTransactionError }
            try sql { () throws(SQLiteError) in try counts.flush() }
        } catch {
            connection.transactionDepth = 0
            connection.transactionLost = false
            history.awaitingSince = awaiting
            if db.inTransaction { try? db.statement("ROLLBACK").run() }
            counts.dropHeld()
            connection.forgetApps()
            throw error
        }
        connection.transactionDepth = 0
        do {
            try db.statement("COMMIT").run()
        } catch {
            history.awaitingSince = awaiting
            if db.inTransaction { try? db.statement("ROLLBACK").run() }
            counts.dropHeld()
            connection.forgetApps()
            throw StoreError(.io, error)
        }
        counts.transactionEnded()
        if history.confirmable == confirming { history.confirmable = nil }
        if let walFrames { finishCheckpoint(walFrames) }
        return result
    }

    /// Inside a transaction: runs `body`; when it throws, undoes exactly what `body` changed (SQLite
    /// `SAVEPOINT … ROLLBACK TO`) and rethrows, leaving the rest of the transaction intact.
    public func savepoint<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        // Held counts predate the savepoint: written now, so that a ROLLBACK TO drops only its own.
        try sql { () throws(SQLiteError) in
            try counts.flush()
            try db.statement("SAVEPOINT push").run()
        }
        do {
            let result = try body()
            try sql { () throws(SQLiteError) in try db.statement("RELEASE push").run() }
            return result
        } catch {
            try? db.statement("ROLLBACK TO push").run()
            try? db.statement("RELEASE push").run()
            counts.dropHeld()
            connection.forgetApps()
            throw error
        }
    }

    /// Runs SQLite calls inside the store's error rules (`StoreConnection.sql`).
    @inline(__always)
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R { try connection.sql(body) }

    // MARK: The file

    /// At start, before anything else: every history record still awaiting its hand-over becomes
    /// `unconfirmed` (the previous process died before it knew). One transaction; returns how many.
    public func markUnconfirmed() throws(StoreError) -> Int {
        try transaction { () throws(StoreError) -> Int in try history.markUnconfirmed() }
    }

    /// Returns up to `pages` free pages to the file system (incremental auto-vacuum); how many were freed.
    @discardableResult
    public func reclaimFreePages(limit pages: Int) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let free = try db.statement("PRAGMA freelist_count")
            let before = try free.step() ? free.int64(0) : 0
            free.reset()
            guard before > 0 else { return 0 }
            try db.execute("PRAGMA incremental_vacuum(\(max(1, pages)))")
            let after = try free.step() ? free.int64(0) : 0
            free.reset()
            return Int(before - after)
        }
    }
}
