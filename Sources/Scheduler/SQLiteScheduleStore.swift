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
    /// The first history seq appended awaiting its hand-over since the last `confirmHandOver`.
    var awaitingSince: Int64?
    /// History seqs handed over, to be confirmed by the next transaction that commits.
    var confirmable: ClosedRange<Int64>?

    /// Opens (creating when missing) the database at `path`.
    public init(path: String) throws(StoreError) {
        try StorePath.createIfMissing(path)
        do {
            db = try SQLiteConnection(openingExisting: path)
        } catch {
            throw StoreError(.unavailable, error)
        }
        try Self.check(db)
        do throws(SQLiteError) {
            try db.execute("PRAGMA busy_timeout = 5000")
            let mode = try db.statement("PRAGMA journal_mode = WAL")
            let journal = try mode.step() ? mode.string(0) : ""
            mode.reset()
            guard journal == "wal" else {
                throw SQLiteError(code: 0, message: "journal_mode is \(journal), not wal", context: "open \(path)")
            }
            // FULL: fsync the WAL at every commit (see the type's documentation). NORMAL would not.
            try db.execute("PRAGMA synchronous = FULL")
            // Savepoint sub-journals in memory, not in a temporary file: a batch of 1,000 pushes (each in
            // a savepoint) otherwise writes every page's pre-image to disk (16 pwrite calls per push measured).
            try db.execute("PRAGMA temp_store = MEMORY")
            // After a checkpoint the WAL file is truncated to at most this (it would otherwise keep its peak).
            try db.execute("PRAGMA journal_size_limit = 4194304")
        } catch {
            db.close()
            throw StoreError(.io, error)
        }
        do {
            try StoreSchema.migrate(db)
        } catch {
            db.close()
            throw error
        }
    }

    /// Refuses files that are not SQLite, fail the quick integrity check, or belong to another program.
    private static func check(_ db: SQLiteConnection) throws(StoreError) {
        var tableCount: Int64 = 0, verdict = "no answer", userVersion: Int64 = 0
        do throws(SQLiteError) {
            let tables = try db.statement("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
            if try tables.step() { tableCount = tables.int64(0) }
            tables.reset()
            let quick = try db.statement("PRAGMA quick_check(1)")
            if try quick.step() { verdict = quick.string(0) }
            quick.reset()
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
        do {
            try sql { () throws(SQLiteError) in try writePendingConfirmation() }
            result = try body()
        } catch {
            transactionDepth = 0
            awaitingSince = awaiting
            try? db.statement("ROLLBACK").run()
            throw error
        }
        transactionDepth = 0
        do {
            try db.statement("COMMIT").run()
        } catch {
            awaitingSince = awaiting
            if db.inTransaction { try? db.statement("ROLLBACK").run() }
            throw StoreError(.io, error)
        }
        if confirmable == confirming { confirmable = nil }
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
            throw error
        }
    }

    /// Runs SQLite calls, turning their errors into `StoreError.io`.
    @inline(__always)
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R {
        do { return try body() } catch { throw StoreError(.io, error) }
    }

    // MARK: Schedules

    static let columns = """
        key, id, kind, spec, at_instant, at_offset, wall, zone, until_instant, until_wall, until_zone, next_due, \
        last_due, title, body, data, cancel_on, grace, urgency, icon, category, actions, message_id, fingerprint, \
        stored_at, app, extras
        """

    public func insert(_ s: StoredSchedule) throws(StoreError) -> Int64 {
        try sql { () throws(SQLiteError) -> Int64 in
            let st = try db.statement("""
                INSERT INTO schedules(id, kind, spec, at_instant, at_offset, wall, zone, until_instant, until_wall, \
                until_zone, next_due, last_due, title, body, data, cancel_on, grace, urgency, icon, category, actions, \
                message_id, fingerprint, stored_at, app, extras) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, \
                ?22, ?23, ?24, ?25, ?26)
                """)
            st.bind(1, s.id)
            st.bind(2, s.kind.rawValue)
            st.bind(3, s.spec)
            st.bind(4, s.atInstant?.microseconds)
            st.bind(5, s.atOffset)
            st.bind(6, s.wall.map(StoreCoding.encodeWall))
            st.bind(7, s.zone)
            st.bind(8, s.untilInstant?.microseconds)
            st.bind(9, s.untilWall.map(StoreCoding.encodeWall))
            st.bind(10, s.untilZone)
            st.bind(11, s.next.microseconds)
            st.bind(12, s.lastDue?.microseconds)
            st.bind(13, s.title)
            st.bind(14, s.body)
            st.bind(15, s.dataJSON)
            st.bind(16, s.cancelOn.isEmpty ? nil : StoreCoding.encodeList(s.cancelOn))
            st.bind(17, s.graceSeconds)
            st.bind(18, StoreCoding.encodeUrgency(s.urgency))
            st.bind(19, s.icon)
            st.bind(20, s.category)
            st.bind(21, StoreCoding.encodeActions(s.actions))
            st.bind(22, s.messageId)
            st.bind(23, s.fingerprint)
            st.bind(24, s.storedAt.microseconds)
            st.bind(25, s.app)
            st.bind(26, StoreCoding.encode(extras: s.extras))
            try st.run()
            let key = db.lastInsertRowid
            if !s.cancelOn.isEmpty {
                let event = try db.statement("INSERT OR IGNORE INTO schedule_events(event, key) VALUES(?1, ?2)")
                for name in s.cancelOn {
                    event.bind(1, name)
                    event.bind(2, key)
                    try event.run()
                }
            }
            return key
        }
    }

    static func read(_ st: SQLiteStatement) -> StoredSchedule {
        var s = StoredSchedule(
            key: st.int64(0), app: st.string(25), id: st.string(1),
            kind: StoredTriggerKind(rawValue: st.int64(2)) ?? .fixedAt,
            spec: st.optionalString(3),
            atInstant: st.optionalInt64(4).map(Instant.init(microseconds:)),
            atOffset: st.optionalInt64(5).map { Int($0) },
            wall: st.optionalInt64(6).map(StoreCoding.decodeWall),
            zone: st.optionalString(7),
            untilInstant: st.optionalInt64(8).map(Instant.init(microseconds:)),
            untilWall: st.optionalInt64(9).map(StoreCoding.decodeWall),
            untilZone: st.optionalString(10),
            next: Instant(microseconds: st.int64(11)),
            lastDue: st.optionalInt64(12).map(Instant.init(microseconds:)),
            title: st.string(13), body: st.optionalString(14), dataJSON: st.optionalString(15),
            cancelOn: st.optionalString(16).map(StoreCoding.decodeList) ?? [],
            graceSeconds: st.optionalInt64(17),
            urgency: StoreCoding.decodeUrgency(st.int64(18)),
            icon: st.optionalString(19), category: st.optionalString(20),
            actions: StoreCoding.decodeActions(st.optionalString(21)),
            messageId: st.optionalString(22), fingerprint: st.string(23),
            storedAt: Instant(microseconds: st.int64(24)))
        s.extras = StoreCoding.decodeExtras(st.optionalString(26))
        return s
    }

    /// Runs a cached SELECT of schedules with `bind` applied, collecting every row.
    func select(_ whereClause: String, _ bind: (SQLiteStatement) -> Void) throws(StoreError) -> [StoredSchedule] {
        try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("SELECT \(Self.columns) FROM schedules \(whereClause)")
            defer { st.reset() }
            bind(st)
            var rows: [StoredSchedule] = []
            while try st.step() { rows.append(Self.read(st)) }
            return rows
        }
    }

    public func schedule(key: Int64) throws(StoreError) -> StoredSchedule? {
        try select("WHERE key = ?1") { $0.bind(1, key) }.first
    }

    public func schedule(app: String, id: String) throws(StoreError) -> StoredSchedule? {
        try select("WHERE app = ?1 AND id = ?2") { $0.bind(1, app); $0.bind(2, id) }.first
    }

    public func pendingSummary(app: String, id: String) throws(StoreError) -> (key: Int64, next: Instant, fingerprint: String)? {
        try sql { () throws(SQLiteError) -> (key: Int64, next: Instant, fingerprint: String)? in
            let st = try db.statement("SELECT key, next_due, fingerprint FROM schedules WHERE app = ?2 AND id = ?1")
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, app)
            guard try st.step() else { return nil }
            return (st.int64(0), Instant(microseconds: st.int64(1)), st.string(2))
        }
    }

    public func pushLookup(app: String, id: String, run: String) throws(StoreError) -> PushLookup {
        try sql { () throws(SQLiteError) -> PushLookup in
            let st = try db.statement("""
                SELECT EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 0 AND name = ?1),
                       EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 1 AND name = ?2),
                       s.key, s.next_due, s.fingerprint, f.fingerprint
                FROM (SELECT ?1 AS id, ?3 AS app) AS q
                LEFT JOIN schedules AS s ON s.app = q.app AND s.id = q.id
                LEFT JOIN finished AS f ON f.app = q.app AND f.id = q.id
                """)
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, run)
            st.bind(3, app)
            guard try st.step() else { return PushLookup(idTombstoned: false, runTombstoned: false) }
            return PushLookup(idTombstoned: st.int64(0) != 0, runTombstoned: st.int64(1) != 0,
                              pendingKey: st.optionalInt64(2), pendingNext: st.optionalInt64(3).map(Instant.init(microseconds:)),
                              pendingFingerprint: st.optionalString(4), finishedFingerprint: st.optionalString(5))
        }
    }

    public func delete(_ schedule: StoredSchedule) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM schedules WHERE key = ?1")
            st.bind(1, schedule.key)
            try st.run()
            guard !schedule.cancelOn.isEmpty else { return }
            let events = try db.statement("DELETE FROM schedule_events WHERE event = ?1 AND key = ?2")
            for name in schedule.cancelOn {
                events.bind(1, name)
                events.bind(2, schedule.key)
                try events.run()
            }
        }
    }

    public func updateNext(key: Int64, next: Instant, lastDue: Instant?) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("UPDATE schedules SET next_due = ?2, last_due = ?3 WHERE key = ?1")
            st.bind(1, key)
            st.bind(2, next.microseconds)
            st.bind(3, lastDue?.microseconds)
            try st.run()
        }
    }

    public func pendingDeadlines() throws(StoreError) -> [(key: Int64, due: Instant)] {
        try sql { () throws(SQLiteError) -> [(key: Int64, due: Instant)] in
            let st = try db.statement("SELECT key, next_due FROM schedules")
            defer { st.reset() }
            var rows: [(key: Int64, due: Instant)] = []
            while try st.step() { rows.append((st.int64(0), Instant(microseconds: st.int64(1)))) }
            return rows
        }
    }

    public func floatingSchedules() throws(StoreError) -> [StoredSchedule] {
        try select("WHERE kind != \(StoredTriggerKind.fixedAt.rawValue) AND zone IS NULL") { _ in }
    }

    public func pinnedSchedules(zone name: String) throws(StoreError) -> [StoredSchedule] {
        try select("WHERE zone = ?1 OR until_zone = ?1 ORDER BY key") { $0.bind(1, name) }
    }

    public func pinnedZoneNames() throws(StoreError) -> Set<String> {
        try sql { () throws(SQLiteError) -> Set<String> in
            let st = try db.statement("""
                SELECT zone FROM schedules WHERE zone IS NOT NULL
                UNION SELECT until_zone FROM schedules WHERE until_zone IS NOT NULL
                """)
            defer { st.reset() }
            var names = Set<String>()
            while try st.step() { names.insert(st.string(0)) }
            return names
        }
    }

    public func schedules(app: String, run: String) throws(StoreError) -> [StoredSchedule] {
        // Run R covers the id R and every id starting with "R:" — under SQLite's BINARY collation exactly
        // the ids in ["R:", "R;") since ';' follows ':'. A run id never holds ':', so such a run covers nothing.
        guard !run.contains(":") else { return [] }
        return try select("WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3)) ORDER BY next_due, key") { st in
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            st.bind(4, app)
        }
    }

    public func schedules(app: String, cancelOn event: String) throws(StoreError) -> [StoredSchedule] {
        try select("""
            WHERE app = ?2 AND key IN (SELECT key FROM schedule_events WHERE event = ?1) ORDER BY next_due, key
            """) {
            $0.bind(1, event)
            $0.bind(2, app)
        }
    }

    /// Two index seeks on `schedules_by_next(next_due, key)` (per app: `schedules_by_app_next(app,
    /// next_due, key)`): the rest of the cursor's instant, then the later instants. (A row-value
    /// `(next_due, key) > (?, ?)` would seek on `next_due` alone and then scan every row due at the
    /// cursor's instant: 80 ms at 1M rows due at once.)
    public func schedulesByNext(app: String?, after cursor: PendingCursor?, limit: Int) throws(StoreError) -> [StoredSchedule] {
        let appClause = app == nil ? "" : "app = ?4 AND "
        guard let cursor else {
            return try select("\(app == nil ? "" : "WHERE app = ?4 ")ORDER BY next_due, key LIMIT ?1") {
                $0.bind(1, Int64(max(0, limit)))
                if let app { $0.bind(4, app) }
            }
        }
        return try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("""
                SELECT * FROM (
                  SELECT * FROM (SELECT \(Self.columns) FROM schedules WHERE \(appClause)next_due = ?1 AND key > ?2
                                 ORDER BY key LIMIT ?3)
                  UNION ALL
                  SELECT * FROM (SELECT \(Self.columns) FROM schedules WHERE \(appClause)next_due > ?1
                                 ORDER BY next_due, key LIMIT ?3))
                ORDER BY next_due, key LIMIT ?3
                """)
            defer { st.reset() }
            st.bind(1, cursor.next.microseconds)
            st.bind(2, cursor.key)
            st.bind(3, Int64(max(0, limit)))
            if let app { st.bind(4, app) }
            var rows: [StoredSchedule] = []
            while try st.step() { rows.append(Self.read(st)) }
            return rows
        }
    }

    public func schedulesByNext(app: String?, limit: Int?, offset: Int) throws(StoreError) -> [StoredSchedule] {
        if let app {
            return try select("WHERE app = ?3 ORDER BY next_due, key LIMIT ?1 OFFSET ?2") { st in
                st.bind(1, Int64(limit ?? -1))
                st.bind(2, Int64(max(0, offset)))
                st.bind(3, app)
            }
        }
        return try select("ORDER BY next_due, key LIMIT ?1 OFFSET ?2") { st in
            st.bind(1, Int64(limit ?? -1))
            st.bind(2, Int64(max(0, offset)))
        }
    }

    public func pendingCount(app: String?) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            // Kept by triggers on `schedules` (schema step 5): one key lookup (or a sum over the apps), not a
            // count of the rows.
            guard let app else {
                let all = try db.statement("SELECT coalesce(sum(n), 0) FROM pending_counts")
                defer { all.reset() }
                return try all.step() ? Int(all.int64(0)) : 0
            }
            let st = try db.statement("SELECT n FROM pending_counts WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, app)
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }
}
