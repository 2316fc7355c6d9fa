import SchedCalendar

// Schedules by run, by cancel event and by next due (paging; the all-apps listing merges the apps' ranges),
// and the per-app counts the quota reads.
extension SQLiteScheduleStore {
    public func schedules(app: String, run: String) throws(StoreError) -> [StoredSchedule] {
        // Run R covers the id R and every id starting with "R:" — under SQLite's BINARY collation exactly
        // the ids in ["R:", "R;") since ';' follows ':'. A run id never holds ':', so such a run covers nothing.
        guard !run.contains(":") else { return [] }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try select("WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3)) ORDER BY next_due, key") { st in
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            st.bind(4, n)
        }
    }

    /// One range of the `schedule_events(app, event, key)` key, then each row by its key.
    public func schedules(app: String, cancelOn event: String) throws(StoreError) -> [StoredSchedule] {
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try select("""
            WHERE key IN (SELECT key FROM schedule_events WHERE app = ?2 AND event = ?1) ORDER BY next_due, key
            """) {
            $0.bind(1, event)
            $0.bind(2, n)
        }
    }

    /// Per app: two index seeks on `schedules_by_app_next(app, next_due, key)` — the rest of the cursor's
    /// instant, then the later instants. (A row-value `(next_due, key) > (?, ?)` would seek on `next_due`
    /// alone and then scan every row due at the cursor's instant: 80 ms at 1M rows due at once.) Across
    /// apps: the same page of every app, merged: O(apps × limit).
    public func schedulesByNext(app: String?, after cursor: PendingCursor?, limit: Int) throws(StoreError) -> [StoredSchedule] {
        guard let app else {
            return try mergeApps(limit: limit) { (name) throws(StoreError) in
                try schedulesByNext(app: name, after: cursor, limit: limit)
            }
        }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        guard let cursor else {
            return try select("AS s WHERE app = ?4\(uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?1") {
                $0.bind(1, Int64(max(0, limit)))
                $0.bind(4, n)
            }
        }
        return try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("""
                SELECT * FROM (
                  SELECT * FROM (SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE app = ?4 AND next_due = ?1
                                 AND key > ?2\(uncoveredFilter(n)) ORDER BY key LIMIT ?3)
                  UNION ALL
                  SELECT * FROM (SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE app = ?4 AND next_due > ?1
                                 \(uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?3))
                ORDER BY next_due, key LIMIT ?3
                """)
            defer { st.reset() }
            st.bind(1, cursor.next.microseconds)
            st.bind(2, cursor.key)
            st.bind(3, Int64(max(0, limit)))
            st.bind(4, n)
            return try readAll(st)
        }
    }

    /// OFFSET paging (the v1 `List`): SQLite walks `offset` index entries, O(offset + limit); across apps the
    /// first `offset + limit` of every app are merged.
    public func schedulesByNext(app: String?, limit: Int?, offset: Int) throws(StoreError) -> [StoredSchedule] {
        guard let app else {
            let names = try appsWithPending()
            if names.count == 1 { return try schedulesByNext(app: names[0], limit: limit, offset: offset) }
            let window = limit.map { offset + $0 }
            let merged = try mergeApps(limit: window) { (name) throws(StoreError) in
                try schedulesByNext(app: name, limit: window, offset: 0)
            }
            return Array(merged.dropFirst(max(0, offset)))
        }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try select("AS s WHERE app = ?3\(uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?1 OFFSET ?2") { st in
            st.bind(1, Int64(limit ?? -1))
            st.bind(2, Int64(max(0, offset)))
            st.bind(3, n)
        }
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

    /// The first `limit` (all when nil) of every app's `page`, in (next due, key) order.
    private func mergeApps(limit: Int?, _ page: (String) throws(StoreError) -> [StoredSchedule])
        throws(StoreError) -> [StoredSchedule] {
        var rows: [StoredSchedule] = []
        for name in try appsWithPending() { rows += try page(name) }
        rows.sort { ($0.next, $0.key) < ($1.next, $1.key) }
        if let limit { return Array(rows.prefix(max(0, limit))) }
        return rows
    }

    public func pendingCount(app: String?) throws(StoreError) -> Int {
        try pendingTotals(app: app).count
    }

    public func pendingBytes(app: String?) throws(StoreError) -> Int {
        try pendingTotals(app: app).bytes
    }

    /// Kept by triggers on `schedules` (schema steps 5 and 6): one key lookup (or a sum over the apps), not a
    /// count of the rows.
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
}
