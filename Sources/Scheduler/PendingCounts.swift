import SchedCalendar

/// The per-app totals the quotas read (CONTRACT §8 "Quota"): `pending_counts` (pending schedules `n`, their
/// `bytes`, the `kept` bytes of what the app leaves behind) and `history_counts`. Every read of them, and
/// the one write the store makes itself, is here.
///
/// Who keeps `pending_counts` (each in the writing transaction, so the totals are exact; docs/store.md
/// "Who keeps the counts"):
/// - `n` and `bytes`: this type only, called by the three statements that change `schedules` rows, all in
///   `ScheduleTable` — `added` after its INSERT, `removed` after its DELETE, `detailChanged` with its
///   next-due UPDATE (schema 12 dropped the last triggers that counted them; schema 8 the insert's);
/// - `kept`: the triggers `kept_*` on `finished`, `applied`, `tombstones`, `cancel_jobs` (schema 9) and
///   `push_replays` (schema 11), with the formulas of `StoreKeptBytes`: those rows are also written by
///   other triggers (a deleted schedule's or replaced finished record's digest moves into `applied`), so
///   only a trigger sees every one of them.
/// `history_counts` (`n`, `bytes`) is kept by the triggers `history_counts_*` and `kept_payload_*`.
///
/// Held additions (issue 35): inside a transaction, `added` does not write. The additions are held in
/// memory per app and written with one upsert per app (`flush`) before COMMIT, before a SAVEPOINT, and
/// before any statement that reads or updates `n`/`bytes` in SQL; a rollback (to a savepoint, or whole)
/// drops them (`dropHeld`). Held additions always date from after the latest SAVEPOINT started (it
/// flushed), so a ROLLBACK TO — which undoes everything since — drops exactly them. Readers in this type
/// add them, so every answer is exact at every moment. A bulk load of one app writes `pending_counts` once
/// per transaction instead of once per row.
///
/// The quota's read (`readTotals`) is remembered within a transaction while no row of any table changes
/// (`SQLiteConnection.totalChanges`; `ScheduleTable.insert` vouches for its own rows, which the totals do
/// not read), so a bulk load reads the app's totals once per transaction, not once per push.
public final class PendingCounts: StoreTable {
    let connection: StoreConnection
    /// Additions to `n` and `bytes` not written yet, per app number (a batch is one app: a short array).
    private var held: [(app: Int64, n: Int64, bytes: Int64)] = []
    /// The last `readTotals` from SQL (held additions not included), valid while `db.totalChanges` equals
    /// `mark` inside the transaction it was read in.
    private var remembered: (app: Int64, totals: StoredTotals, mark: Int64)?

    init(_ connection: StoreConnection) { self.connection = connection }

    /// One more pending schedule of app number `app`, holding `bytes` (`StoreRowCoding.storedBytes`).
    /// Inside a transaction: held (O(apps held)); outside one: one upsert by key.
    func added(app: Int64, bytes: Int) throws(SQLiteError) {
        guard connection.transactionDepth > 0 else { return try write(app: app, n: 1, bytes: Int64(bytes)) }
        if let i = held.firstIndex(where: { $0.app == app }) {
            held[i].n += 1
            held[i].bytes += Int64(bytes)
        } else {
            held.append((app, 1, Int64(bytes)))
        }
    }

    /// Writes the held additions (one upsert per app) and forgets them. Before COMMIT, SAVEPOINT and any
    /// statement on `n`/`bytes`. O(apps held).
    func flush() throws(SQLiteError) {
        guard !held.isEmpty else { return }
        for h in held { try write(app: h.app, n: h.n, bytes: h.bytes) }
        held.removeAll(keepingCapacity: true)
    }

    /// After a ROLLBACK or ROLLBACK TO: the held additions were undone with the rows they counted, and
    /// the remembered read may describe undone rows. O(1).
    func dropHeld() {
        held.removeAll(keepingCapacity: true)
        remembered = nil
    }

    /// After COMMIT (flushed first): the remembered read belongs to the committed transaction. O(1).
    func transactionEnded() { remembered = nil }

    /// `ScheduleTable.insert` wrote exactly `rows` rows of its own tables (none the totals read) since
    /// `db.totalChanges` was `mark`: a read remembered at `mark` stays valid, unless a trigger wrote too.
    func ownRowsWritten(_ rows: Int64, since mark: Int64) {
        guard let r = remembered, r.mark == mark else { return }
        let now = db.totalChanges
        remembered = now == mark + rows ? (r.app, r.totals, now) : nil
    }

    /// Adds `n` schedules and `bytes` bytes to app number `app`'s row (made when missing). One upsert by key.
    private func write(app: Int64, n: Int64, bytes: Int64) throws(SQLiteError) {
        let counts = try db.statement("""
            INSERT INTO pending_counts(app, n, bytes) VALUES (?1, ?2, ?3) \
            ON CONFLICT(app) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes
            """)
        counts.bind(1, app)
        counts.bind(2, n)
        counts.bind(3, bytes)
        try counts.run()
    }

    /// The held additions of app number `app` (nil: of every app). O(apps held).
    private func heldTotals(app: Int64?) -> (n: Int, bytes: Int) {
        var n: Int64 = 0, bytes: Int64 = 0
        for h in held where app == nil || h.app == app { n += h.n; bytes += h.bytes }
        return (Int(n), Int(bytes))
    }

    /// One pending schedule of app number `app` less, which held `bytes` (the deleted row's
    /// `StoreRowCoding.storedBytesSQL`, returned by the DELETE). Inside the deleting transaction. One update
    /// by key (after the held additions are written: the row may not exist before).
    func removed(app: Int64, bytes: Int64) throws(SQLiteError) {
        try flush()
        let counts = try db.statement("UPDATE pending_counts SET n = n - 1, bytes = bytes - ?2 WHERE app = ?1")
        counts.bind(1, app)
        counts.bind(2, bytes)
        try counts.run()
    }

    /// Schedule `key` of app number `app` is about to have its `detail` replaced by one of `newBytes` UTF-8
    /// bytes (nil: NULL): its app's `bytes` move by the difference, the old length read from the row in the
    /// same statement. Run before the UPDATE, inside its transaction. Two key lookups.
    func detailChanged(key: Int64, app: Int64, newBytes: Int?) throws(SQLiteError) {
        try flush()
        let counts = try db.statement("""
            UPDATE pending_counts SET bytes = bytes + ?3             - (SELECT coalesce(length(CAST(detail AS BLOB)), 0) FROM schedules WHERE key = ?1) WHERE app = ?2
            """)
        counts.bind(1, key)
        counts.bind(2, app)
        counts.bind(3, Int64(newBytes ?? 0))
        try counts.run()
    }

    /// Number of pending schedules of `app` (nil: of every app; the quota, CONTRACT §8). One key lookup
    /// (or a sum over the apps), not a count of the rows.
    public func pendingCount(app: String?) throws(StoreError) -> Int {
        try pendingTotals(app: app).count
    }

    /// The bytes the pending schedules of `app` (nil: of every app) hold, as `ScheduleTable.storedBytes`
    /// counts them (the byte quota, CONTRACT §8). Kept like `pendingCount`.
    public func pendingBytes(app: String?) throws(StoreError) -> Int {
        try pendingTotals(app: app).bytes
    }

    /// `pendingCount` and `pendingBytes` from one read of the kept totals.
    public func pendingTotals(app: String?) throws(StoreError) -> (count: Int, bytes: Int) {
        try sql { () throws(SQLiteError) -> (count: Int, bytes: Int) in
            guard let app else {
                let all = try db.statement("SELECT coalesce(sum(n), 0), coalesce(sum(bytes), 0) FROM pending_counts")
                defer { all.reset() }
                let h = heldTotals(app: nil)
                return try all.step() ? (Int(all.int64(0)) + h.n, Int(all.int64(1)) + h.bytes) : h
            }
            let n = try lookupApp(app)
            let st = try db.statement("SELECT n, bytes FROM pending_counts WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, n)
            let h = heldTotals(app: n)
            return try st.step() ? (Int(st.int64(0)) + h.n, Int(st.int64(1)) + h.bytes) : h
        }
    }

    /// The totals of `app`: pending schedules and their bytes, the bytes of what it leaves behind (finished
    /// records, digests, tombstones, cancellation jobs) and of its history (schema 9). Two key lookups.
    public func storedTotals(app: String) throws(StoreError) -> StoredTotals {
        try sql { () throws(SQLiteError) -> StoredTotals in try readTotals(app: app) }
    }

    /// The app's `pending_counts` row (by number) and its `history_counts` bytes (by name), with its held
    /// additions: one statement, or none when the transaction's last read of this app is still valid.
    func readTotals(app: String) throws(SQLiteError) -> StoredTotals {
        let n = try lookupApp(app)
        var totals: StoredTotals
        if let r = remembered, r.app == n, connection.transactionDepth > 0, r.mark == db.totalChanges {
            totals = r.totals
        } else {
            totals = try selectTotals(app: app, number: n)
            remembered = connection.transactionDepth > 0 ? (n, totals, db.totalChanges) : nil
        }
        let h = heldTotals(app: n)
        totals.pendingCount += h.n
        totals.pendingBytes += h.bytes
        return totals
    }

    /// One statement: the app's `pending_counts` row (by number `number`) and its `history_counts` bytes
    /// (by name). Held additions not included.
    private func selectTotals(app: String, number: Int64) throws(SQLiteError) -> StoredTotals {
        let st = try db.statement("""
            SELECT coalesce(p.n, 0), coalesce(p.bytes, 0), coalesce(p.kept, 0),
                coalesce((SELECT bytes FROM history_counts WHERE app = ?2), 0)
            FROM (SELECT 1) LEFT JOIN pending_counts AS p ON p.app = ?1
            """)
        defer { st.reset() }
        st.bind(1, number)
        st.bind(2, app)
        var totals = StoredTotals()
        if try st.step() {
            (totals.pendingCount, totals.pendingBytes, totals.keptBytes, totals.historyBytes) =
                (Int(st.int64(0)), Int(st.int64(1)), Int(st.int64(2)), Int(st.int64(3)))
        }
        return totals
    }

    /// The apps that have pending schedules, by name. O(apps).
    func appsWithPending() throws(StoreError) -> [String] {
        try sql { () throws(SQLiteError) -> [String] in
            try flush()
            let st = try db.statement("SELECT a.name FROM pending_counts AS p JOIN apps AS a ON a.n = p.app WHERE p.n > 0 ORDER BY a.name")
            defer { st.reset() }
            var names: [String] = []
            while try st.step() { names.append(st.string(0)) }
            return names
        }
    }
}

/// What one app stores, as its byte quota counts it (CONTRACT §8 "Quota"; `StoreKeptBytes`).
public struct StoredTotals: Equatable, Sendable {
    /// Pending schedules (what PendingCount answers before cancellation jobs are subtracted).
    public var pendingCount = 0
    /// `StoreRowCoding.storedBytes` of the pending schedules.
    public var pendingBytes = 0
    /// Finished records, applied digests, tombstones, cancellation jobs and the UnifiedPush replay window.
    public var keptBytes = 0
    /// History records (they give way to make room: `HistoryTable.makeRoom`).
    public var historyBytes = 0
    /// Everything but history: what a write is refused on.
    public var firm: Int { pendingBytes + keptBytes }
    /// Everything.
    public var all: Int { pendingBytes + keptBytes + historyBytes }

    public init() {}
}
