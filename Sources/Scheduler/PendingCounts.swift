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
public final class PendingCounts: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// One more pending schedule of app number `app`, holding `bytes` (`StoreRowCoding.storedBytes`).
    /// Inside the inserting statement's transaction. One upsert by key.
    func added(app: Int64, bytes: Int) throws(SQLiteError) {
        let counts = try db.statement("""
            INSERT INTO pending_counts(app, n, bytes) VALUES (?1, 1, ?2) \
            ON CONFLICT(app) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes
            """)
        counts.bind(1, app)
        counts.bind(2, Int64(bytes))
        try counts.run()
    }

    /// One pending schedule of app number `app` less, which held `bytes` (the deleted row's
    /// `StoreRowCoding.storedBytesSQL`, returned by the DELETE). Inside the deleting transaction. One update by key.
    func removed(app: Int64, bytes: Int64) throws(SQLiteError) {
        let counts = try db.statement("UPDATE pending_counts SET n = n - 1, bytes = bytes - ?2 WHERE app = ?1")
        counts.bind(1, app)
        counts.bind(2, bytes)
        try counts.run()
    }

    /// Schedule `key` of app number `app` is about to have its `detail` replaced by one of `newBytes` UTF-8
    /// bytes (nil: NULL): its app's `bytes` move by the difference, the old length read from the row in the
    /// same statement. Run before the UPDATE, inside its transaction. Two key lookups.
    func detailChanged(key: Int64, app: Int64, newBytes: Int?) throws(SQLiteError) {
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
                return try all.step() ? (Int(all.int64(0)), Int(all.int64(1))) : (0, 0)
            }
            let st = try db.statement("SELECT n, bytes FROM pending_counts WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            return try st.step() ? (Int(st.int64(0)), Int(st.int64(1))) : (0, 0)
        }
    }

    /// The totals of `app`: pending schedules and their bytes, the bytes of what it leaves behind (finished
    /// records, digests, tombstones, cancellation jobs) and of its history (schema 9). Two key lookups.
    public func storedTotals(app: String) throws(StoreError) -> StoredTotals {
        try sql { () throws(SQLiteError) -> StoredTotals in try readTotals(app: app) }
    }

    /// One statement: the app's `pending_counts` row (by number) and its `history_counts` bytes (by name).
    func readTotals(app: String) throws(SQLiteError) -> StoredTotals {
        let st = try db.statement("""
            SELECT coalesce(p.n, 0), coalesce(p.bytes, 0), coalesce(p.kept, 0),
                coalesce((SELECT bytes FROM history_counts WHERE app = ?2), 0)
            FROM (SELECT 1) LEFT JOIN pending_counts AS p ON p.app = ?1
            """)
        defer { st.reset() }
        st.bind(1, try lookupApp(app))
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
