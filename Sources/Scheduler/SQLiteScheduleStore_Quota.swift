import SchedCalendar

// The byte quota over everything an app keeps (schema 9; StoreKeptBytes, docs/store.md "Version 9").
extension SQLiteScheduleStore {
    /// The totals of `app`: pending schedules and their bytes, the bytes of what it leaves behind (finished
    /// records, digests, tombstones, cancellation jobs) and of its history. Two key lookups.
    public func storedTotals(app: String) throws(StoreError) -> StoredTotals {
        try sql { () throws(SQLiteError) -> StoredTotals in try readTotals(app: app) }
    }

    /// Deletes `app`'s oldest history records until they held at least `bytes`: room for a write the
    /// quota allows only once history has given way. O(log n) per record removed.
    public func makeRoomInHistory(app: String, bytes: Int) throws(StoreError) {
        try sql { () throws(SQLiteError) in try trimHistory(app: app, freeing: bytes) }
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
}

/// What one app stores, as its byte quota counts it (CONTRACT §8 "Quota"; `StoreKeptBytes`).
public struct StoredTotals: Equatable, Sendable {
    /// Pending schedules (what PendingCount answers before cancellation jobs are subtracted).
    public var pendingCount = 0
    /// `StoreRowCoding.storedBytes` of the pending schedules.
    public var pendingBytes = 0
    /// Finished records, applied digests, tombstones, cancellation jobs and the UnifiedPush replay window.
    public var keptBytes = 0
    /// History records (they give way to make room: `makeRoomInHistory`).
    public var historyBytes = 0
    /// Everything but history: what a write is refused on.
    public var firm: Int { pendingBytes + keptBytes }
    /// Everything.
    public var all: Int { pendingBytes + keptBytes + historyBytes }

    public init() {}
}
