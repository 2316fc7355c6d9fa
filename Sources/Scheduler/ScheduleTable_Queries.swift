import SchedCalendar

// Schedules by run, by cancel event and by next due (paging; the all-apps listing merges the apps' ranges),
// and the earliest schedule that wakes the machine.
extension ScheduleTable {
    /// Pending schedules of run `run` of `app` (ids equal to it or starting with `run:`).
    public func matching(app: String, run: String) throws(StoreError) -> [StoredSchedule] {
        // Run R covers the id R and every id starting with "R:" — under SQLite's BINARY collation exactly
        // the ids in ["R:", "R;") since ';' follows ':'. A run id never holds ':', so such a run covers nothing.
        guard !holdsRunSeparator(run) else { return [] }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try selectSchedules("WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3)) ORDER BY next_due, key") { st in
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            st.bind(4, n)
        }
    }

    /// Pending schedules of `app` whose cancelOn holds `event`.
    /// One range of the `schedule_events(app, event, key)` key, then each row by its key.
    public func matching(app: String, cancelOn event: String) throws(StoreError) -> [StoredSchedule] {
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try selectSchedules("""
            WHERE key IN (SELECT key FROM schedule_events WHERE app = ?2 AND event = ?1) ORDER BY next_due, key
            """) {
            $0.bind(1, event)
            $0.bind(2, n)
        }
    }

    /// At most `limit` pending schedules of `app` (nil: of every app) ordered by (next due, key), starting
    /// just after `cursor` (from the first when nil). A keyset seek: O(log n + limit), whatever the depth.
    /// Per app: two index seeks on `schedules_by_app_next(app, next_due, key)` — the rest of the cursor's
    /// instant, then the later instants. (A row-value `(next_due, key) > (?, ?)` would seek on `next_due`
    /// alone and then scan every row due at the cursor's instant: 80 ms at 1M rows due at once.) Across
    /// apps: the same page of every app, merged: O(apps × limit).
    public func byNext(app: String?, after cursor: PendingCursor?, limit: Int) throws(StoreError) -> [StoredSchedule] {
        guard let app else {
            return try mergeApps(limit: limit) { (name) throws(StoreError) in
                try byNext(app: name, after: cursor, limit: limit)
            }
        }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        guard let cursor else {
            return try selectSchedules("AS s WHERE app = ?4\(cancelJobs.uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?1") {
                $0.bind(1, Int64(max(0, limit)))
                $0.bind(4, n)
            }
        }
        return try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("""
                SELECT * FROM (
                  SELECT * FROM (SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE app = ?4 AND next_due = ?1
                                 AND key > ?2\(cancelJobs.uncoveredFilter(n)) ORDER BY key LIMIT ?3)
                  UNION ALL
                  SELECT * FROM (SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE app = ?4 AND next_due > ?1
                                 \(cancelJobs.uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?3))
                ORDER BY next_due, key LIMIT ?3
                """)
            defer { st.reset() }
            st.bind(1, cursor.next.microseconds)
            st.bind(2, cursor.key)
            st.bind(3, Int64(max(0, limit)))
            st.bind(4, n)
            return try readSchedules(st)
        }
    }

    /// Pending schedules of `app` (nil: of every app) ordered by (next due, key). O(offset + limit): for
    /// the legacy `List` only.
    /// OFFSET paging (the v1 `List`): SQLite walks `offset` index entries, O(offset + limit); across apps the
    /// first `offset + limit` of every app are merged.
    public func byNext(app: String?, limit: Int?, offset: Int) throws(StoreError) -> [StoredSchedule] {
        guard let app else {
            let names = try counts.appsWithPending()
            if names.count == 1 { return try byNext(app: names[0], limit: limit, offset: offset) }
            let window = limit.map { offset + $0 }
            let merged = try mergeApps(limit: window) { (name) throws(StoreError) in
                try byNext(app: name, limit: window, offset: 0)
            }
            return Array(merged.dropFirst(max(0, offset)))
        }
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try selectSchedules("AS s WHERE app = ?3\(cancelJobs.uncoveredFilter(n)) ORDER BY next_due, key LIMIT ?1 OFFSET ?2") { st in
            st.bind(1, Int64(limit ?? -1))
            st.bind(2, Int64(max(0, offset)))
            st.bind(3, n)
        }
    }

    /// The first `limit` (all when nil) of every app's `page`, in (next due, key) order.
    private func mergeApps(limit: Int?, _ page: (String) throws(StoreError) -> [StoredSchedule])
        throws(StoreError) -> [StoredSchedule] {
        var rows: [StoredSchedule] = []
        for name in try counts.appsWithPending() { rows += try page(name) }
        rows.sort { ($0.next, $0.key) < ($1.next, $1.key) }
        if let limit { return Array(rows.prefix(max(0, limit))) }
        return rows
    }

    /// The earliest `next_due` among schedules whose extras say `wake: true`: a seek on the partial index
    /// `schedules_wake` (schema step 9; the WHERE term is the index's own, word for word, so SQLite uses
    /// it). Each candidate's detail is decoded, so another member that merely contains the text (an icon
    /// named `"wake":true`) is passed over. O(log n + candidates passed over).
    public func earliestWake() throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("""
                SELECT next_due, detail FROM schedules WHERE detail LIKE '%"wake":true%' ORDER BY next_due
                """)
            defer { st.reset() }
            while try st.step() {
                let pairs = StoreCoding.decodeList(st.optionalString(1) ?? "")
                var i = 0
                while i + 1 < pairs.count {
                    if pairs[i] == "x", StoreCoding.decodeExtras(pairs[i + 1]).wake {
                        return Instant(microseconds: st.int64(0))
                    }
                    i += 2
                }
            }
            return nil
        }
    }
}
