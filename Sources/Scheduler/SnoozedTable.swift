import SchedCalendar

/// Table `snoozed`: notifications the person snoozed (CONTRACT §8 "Snooze"), shown again at `until`. The
/// notification's columns are `NotificationColumns`.
public final class SnoozedTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// Keeps `n` to be shown again at `until`. One insert.
    public func add(_ n: DueNotification, until: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO snoozed(\(NotificationColumns.names), until) VALUES(\(NotificationColumns.placeholders(from: 1)), ?13)
                """)
            NotificationColumns.bind(n, to: st, from: 1)
            st.bind(13, until.microseconds)
            try st.run()
        }
    }

    /// The earliest `until` of any snoozed notification. O(log n).
    public func nextUntil() throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("SELECT min(until) FROM snoozed")
            defer { st.reset() }
            return try st.step() ? st.optionalInt64(0).map(Instant.init(microseconds:)) : nil
        }
    }

    /// Snoozed notifications with `until` ≤ `now`, earliest first.
    public func due(by now: Instant) throws(StoreError) -> [SnoozedNotification] {
        try sql { () throws(SQLiteError) -> [SnoozedNotification] in
            let st = try db.statement("""
                SELECT seq, \(NotificationColumns.names), until FROM snoozed WHERE until <= ?1 ORDER BY until, seq
                """)
            defer { st.reset() }
            st.bind(1, now.microseconds)
            var rows: [SnoozedNotification] = []
            while try st.step() {
                rows.append(SnoozedNotification(seq: st.int64(0), notification: NotificationColumns.read(st, from: 1),
                                                until: Instant(microseconds: st.int64(13))))
            }
            return rows
        }
    }

    public func remove(seq: Int64) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM snoozed WHERE seq = ?1")
            st.bind(1, seq)
            try st.run()
        }
    }

    /// Removes the snoozed notifications of `app`'s `id`; returns how many.
    @discardableResult
    public func remove(app: String, id: String) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM snoozed WHERE app = ?1 AND id = ?2")
            st.bind(1, app)
            st.bind(2, id)
            try st.run()
            return db.changes
        }
    }

    /// Ids of `app`'s snoozed notifications of run `run`.
    public func ids(app: String, run: String) throws(StoreError) -> [String] {
        guard !holdsRunSeparator(run) else { return [] }
        return try sql { () throws(SQLiteError) -> [String] in
            let st = try db.statement("""
                SELECT DISTINCT id FROM snoozed WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3)) ORDER BY id
                """)
            defer { st.reset() }
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            st.bind(4, app)
            var ids: [String] = []
            while try st.step() { ids.append(st.string(0)) }
            return ids
        }
    }
}
