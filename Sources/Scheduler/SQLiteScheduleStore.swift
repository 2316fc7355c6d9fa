import SchedCalendar

/// The SQLite-backed `ScheduleStore`: one database file in WAL mode, durable at every commit.
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
public final class SQLiteScheduleStore: ScheduleStore {
    let db: SQLiteConnection
    private var transactionDepth = 0
    /// Set when SQLite rolled the open transaction back by itself — it does on SQLITE_IOERR, and on
    /// SQLITE_FULL or SQLITE_NOMEM in a statement that kept no statement journal — while `transaction`
    /// is still inside its body. Every later statement would run in autocommit mode: committed alone, with
    /// no undo and no answer that says so (a group member after it would be stored but answered failed,
    /// and not armed). So until the outermost `transaction` ends, every store call fails instead, and that
    /// transaction fails whole.
    private var transactionLost = false
    /// The first history seq appended awaiting its hand-over since the last `confirmHandOver`.
    var awaitingSince: Int64?
    /// The seq of the record appended last (`ScheduleStore.lastAppendedSeq`).
    public internal(set) var lastAppendedSeq: Int64 = 0
    /// History seqs handed over, to be confirmed by the next transaction that commits.
    var confirmable: ClosedRange<Int64>?
    /// App names and numbers (`apps`), cached (SQLiteScheduleStore_Apps.swift).
    var appNumbers: [String: Int64] = [:]
    var appNames: [Int64: String] = [:]
    var lastApp: (name: String, n: Int64)?
    /// The highest bound of the cancellation jobs (nil: none exists; SQLiteScheduleStore_CancelJobs.swift).
    var cancelJobFloor: Int64?
    /// The app numbers that may have a cancellation job (a superset: an app leaves it at the next
    /// `refreshCancelJobs`). Another app's firing, push and listing never look at the jobs (issue 31 item 3).
    var cancelJobApps: Set<Int64> = []
    /// The log's frames when the daemon checkpoints from another thread (SQLiteScheduleStore_Checkpoint.swift).
    var walFrames: WALFrames?
    /// History records kept per app (CONTRACT §5), enforced by `appendHistory` in the inserting transaction.
    public var historyLimitPerApp = HistoryRetention.standard.maxRecords
    /// The byte quota per app (`Engine.maxBytesPerApp`): `appendHistory` removes the app's oldest records
    /// while its stored total is above it (history gives way; CONTRACT §8 "Quota").
    public var maxBytesPerApp = Engine.defaultMaxBytesPerApp
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
        do {
            db = try SQLiteConnection(openingExisting: path)
        } catch {
            throw StoreError(.unavailable, error)
        }
        try Self.check(db)
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
            try refreshCancelJobs()
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
        if db.isOpen && confirmable != nil { _ = try? transaction { () throws(StoreError) in } }
        db.close()
    }

    // MARK: Transactions

    public func transaction<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try sql { () throws(SQLiteError) in try db.statement("BEGIN IMMEDIATE").run() }
        transactionDepth = 1
        let result: R
        let confirming = confirmable, awaiting = awaitingSince
        do throws(StoreError) {
            try sql { () throws(SQLiteError) in try writePendingConfirmation() }
            result = try body()
            // A failure the body caught and went on from may have cost the whole transaction.
            if transactionLost { throw Self.lostTransactionError }
        } catch {
            transactionDepth = 0
            transactionLost = false
            awaitingSince = awaiting
            if db.inTransaction { try? db.statement("ROLLBACK").run() }
            forgetApps()
            throw error
        }
        transactionDepth = 0
        do {
            try db.statement("COMMIT").run()
        } catch {
            awaitingSince = awaiting
            if db.inTransaction { try? db.statement("ROLLBACK").run() }
            forgetApps()
            throw StoreError(.io, error)
        }
        if confirmable == confirming { confirmable = nil }
        if let walFrames { finishCheckpoint(walFrames) }
        return result
    }

    public func savepoint<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        try sql { () throws(SQLiteError) in try db.statement("SAVEPOINT push").run() }
        do {
            let result = try body()
            try sql { () throws(SQLiteError) in try db.statement("RELEASE push").run() }
            return result
        } catch {
            try? db.statement("ROLLBACK TO push").run()
            try? db.statement("RELEASE push").run()
            forgetApps()
            throw error
        }
    }

    /// Runs SQLite calls, turning their errors into `StoreError.io` (`.corrupt` for SQLITE_CORRUPT and
    /// SQLITE_NOTADB: damaged pages are found when they are read, since opening reads only the schema).
    @inline(__always)
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R {
        if transactionLost { throw Self.lostTransactionError }
        do { return try body() } catch {
            if transactionDepth > 0 && !db.inTransaction { transactionLost = true }
            let primary = error.code & 0xFF
            throw StoreError(primary == 11 || primary == 26 ? .corrupt : .io, error)
        }
    }

    static let lostTransactionError = StoreError(
        .io, "SQLite rolled this transaction back after a failed statement (disk full or I/O error): nothing of it is stored")

    // MARK: Schedules

    public func insert(_ s: StoredSchedule) throws(StoreError) -> Int64 {
        try sql { () throws(SQLiteError) -> Int64 in
            let app = try internApp(s.app)
            // While a cancellation job exists, above its bound: a schedule stored after the call is not covered.
            let explicitKey = try cancelJobFloor == nil ? nil : keyAboveCancelJobs()
            let st = try db.statement(explicitKey == nil ? """
                INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """ : """
                INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail, key) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                """)
            let detail = StoreRowCoding.detail(of: s)
            StoreRowCoding.bind(s, app: app, detail: detail, to: st)
            if let explicitKey { st.bind(12, explicitKey) }
            try st.run()
            let key = db.lastInsertRowid
            // What the `pending_counts_insert` trigger did before schema 8 (StoreMigration_V8: a trigger made
            // the INSERT above open a statement journal). Same transaction, so the totals stay exact.
            let counts = try db.statement("""
                INSERT INTO pending_counts(app, n, bytes) VALUES (?1, 1, ?2) \
                ON CONFLICT(app) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes
                """)
            counts.bind(1, app)
            counts.bind(2, Int64(StoreRowCoding.storedBytes(s, detail: detail)))
            try counts.run()
            if !s.cancelOn.isEmpty {
                let event = try db.statement("INSERT OR IGNORE INTO schedule_events(app, event, key) VALUES(?1, ?2, ?3)")
                for name in s.cancelOn {
                    event.bind(1, app)
                    event.bind(2, name)
                    event.bind(3, key)
                    try event.run()
                }
            }
            return key
        }
    }

    public func storedBytes(of schedule: StoredSchedule) -> Int {
        StoreRowCoding.storedBytes(schedule, detail: StoreRowCoding.detail(of: schedule))
    }

    /// Runs a cached SELECT of schedules with `bind` applied, collecting every row.
    func select(_ whereClause: String, _ bind: (SQLiteStatement) -> Void) throws(StoreError) -> [StoredSchedule] {
        try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("SELECT \(StoreRowCoding.columns) FROM schedules \(whereClause)")
            defer { st.reset() }
            bind(st)
            return try readAll(st)
        }
    }

    /// Every row of a stepped-from-the-start SELECT of `StoreRowCoding.columns`.
    func readAll(_ st: SQLiteStatement) throws(SQLiteError) -> [StoredSchedule] {
        var rows: [StoredSchedule] = []
        while try st.step() { rows.append(StoreRowCoding.read(st, appName: try appName(st.int64(1)))) }
        return rows
    }

    public func schedule(key: Int64) throws(StoreError) -> StoredSchedule? {
        try select("WHERE key = ?1") { $0.bind(1, key) }.first
    }

    public func schedule(app: String, id: String) throws(StoreError) -> StoredSchedule? {
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try select("WHERE app = ?1 AND id = ?2") { $0.bind(1, n); $0.bind(2, id) }.first
    }

    public func pendingSummary(app: String, id: String) throws(StoreError) -> (key: Int64, next: Instant, fingerprint: String)? {
        try sql { () throws(SQLiteError) -> (key: Int64, next: Instant, fingerprint: String)? in
            let st = try db.statement("SELECT key, next_due, digest FROM schedules WHERE app = ?2 AND id = ?1")
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, try lookupApp(app))
            guard try st.step() else { return nil }
            return (st.int64(0), Instant(microseconds: st.int64(1)), StoreRowCoding.readDigest(st, 2))
        }
    }

    /// One statement for everything a push reads before it writes: two tombstone seeks, the pending and
    /// finished rows of `id` (unique keys), and the `applied` seek for `digest`.
    public func pushLookup(app: String, id: String, run: String, digest: String) throws(StoreError) -> PushLookup {
        try sql { () throws(SQLiteError) -> PushLookup in
            let st = try db.statement("""
                SELECT EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 0 AND name = ?1),
                       EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 1 AND name = ?2),
                       s.key, s.next_due, s.digest, f.digest,
                       EXISTS(SELECT 1 FROM applied WHERE app = ?4 AND id = ?1 AND digest = ?5)
                FROM (SELECT ?1 AS id, ?4 AS app) AS q
                LEFT JOIN schedules AS s ON s.app = q.app AND s.id = q.id
                LEFT JOIN finished AS f ON f.app = q.app AND f.id = q.id
                """)
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, run)
            st.bind(3, app)
            st.bind(4, try lookupApp(app))
            StoreRowCoding.bindDigest(digest, 5, st)
            guard try st.step() else { return PushLookup(idTombstoned: false, runTombstoned: false) }
            return PushLookup(idTombstoned: st.int64(0) != 0, runTombstoned: st.int64(1) != 0,
                              pendingKey: st.optionalInt64(2), pendingNext: st.optionalInt64(3).map(Instant.init(microseconds:)),
                              pendingFingerprint: st.isNull(4) ? nil : StoreRowCoding.readDigest(st, 4),
                              finishedFingerprint: st.isNull(5) ? nil : StoreRowCoding.readDigest(st, 5),
                              digestInApplied: st.int64(6) != 0)
        }
    }

    public func delete(_ schedule: StoredSchedule) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM schedules WHERE key = ?1")
            st.bind(1, schedule.key)
            try st.run()
            guard !schedule.cancelOn.isEmpty else { return }
            let events = try db.statement("DELETE FROM schedule_events WHERE app = ?1 AND event = ?2 AND key = ?3")
            let app = try lookupApp(schedule.app)
            for name in schedule.cancelOn {
                events.bind(1, app)
                events.bind(2, name)
                events.bind(3, schedule.key)
                try events.run()
            }
        }
    }

    /// Reads the row and writes it back with the new `next_due` and `detail` (the last due lives there).
    public func updateNext(key: Int64, next: Instant, lastDue: Instant?) throws(StoreError) {
        guard var s = try schedule(key: key) else { return }
        s.next = next
        s.lastDue = lastDue
        try sql { () throws(SQLiteError) in
            let st = try db.statement("UPDATE schedules SET next_due = ?2, detail = ?3 WHERE key = ?1")
            st.bind(1, key)
            st.bind(2, next.microseconds)
            st.bind(3, StoreRowCoding.detail(of: s))
            try st.run()
        }
    }

    /// Streams `(key, next_due)` of every pending schedule from the `(app, next_due, key)` index (a covering
    /// scan: no row is read, nothing is collected). O(n), O(1) memory.
    public func forEachPendingDeadline(_ body: (Int64, Instant) -> Void) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("SELECT key, next_due FROM schedules INDEXED BY schedules_by_app_next")
            defer { st.reset() }
            while try st.step() { body(st.int64(0), Instant(microseconds: st.int64(1))) }
        }
    }

    public func floatingSchedules() throws(StoreError) -> [StoredSchedule] {
        try select("WHERE kind != \(StoredTriggerKind.fixedAt.rawValue) AND zone IS NULL") { _ in }
    }

    public func pinnedSchedules(zone name: String) throws(StoreError) -> [StoredSchedule] {
        try select("WHERE zone = ?1 OR until_zone = ?1 ORDER BY key") { $0.bind(1, name) }
    }

    /// The distinct zones by skip-scans of the partial indexes on `zone` and `until_zone`: one seek per
    /// zone in use, O(zones × log n), never a scan of the schedules.
    public func pinnedZoneNames() throws(StoreError) -> Set<String> {
        try sql { () throws(SQLiteError) -> Set<String> in
            var names = Set<String>()
            for column in ["zone", "until_zone"] {
                let st = try db.statement("""
                    SELECT \(column) FROM schedules WHERE \(column) > ?1 ORDER BY \(column) LIMIT 1
                    """)
                var last = ""
                while true {
                    st.bind(1, last)
                    guard try st.step() else { st.reset(); break }
                    last = st.string(0)
                    st.reset()
                    names.insert(last)
                }
            }
            return names
        }
    }
}
