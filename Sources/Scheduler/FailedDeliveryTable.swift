import SchedCalendar

/// Table `failed_deliveries`: notifications the notifier could not show, retried until their grace ends
/// (`expires`). The notification's columns are `NotificationColumns`.
public final class FailedDeliveryTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// Keeps `n` for retries until `expires`. One insert.
    public func add(_ n: DueNotification, graceSeconds: Int64?, expires: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO failed_deliveries(\(NotificationColumns.names), grace, expires) \
                VALUES(\(NotificationColumns.placeholders(from: 1)), ?13, ?14)
                """)
            NotificationColumns.bind(n, to: st, from: 1)
            st.bind(13, graceSeconds)
            st.bind(14, expires.microseconds)
            try st.run()
        }
    }

    /// Every failed delivery, by (due, seq).
    public func all() throws(StoreError) -> [FailedDelivery] {
        try rows(where: "ORDER BY due, seq") { _ in }
    }

    private func rows(where clause: String, _ bind: (SQLiteStatement) -> Void) throws(StoreError) -> [FailedDelivery] {
        try sql { () throws(SQLiteError) -> [FailedDelivery] in
            let st = try db.statement("""
                SELECT seq, \(NotificationColumns.names), grace, expires FROM failed_deliveries \(clause)
                """)
            defer { st.reset() }
            bind(st)
            var rows: [FailedDelivery] = []
            while try st.step() {
                rows.append(FailedDelivery(seq: st.int64(0), notification: NotificationColumns.read(st, from: 1),
                                           graceSeconds: st.optionalInt64(13), expires: Instant(microseconds: st.int64(14))))
            }
            return rows
        }
    }

    public func remove(seq: Int64) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM failed_deliveries WHERE seq = ?1")
            st.bind(1, seq)
            try st.run()
        }
    }

    /// Removes the failed deliveries of `app`'s `id`.
    public func remove(app: String, id: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM failed_deliveries WHERE app = ?2 AND id = ?1")
            st.bind(1, id)
            st.bind(2, app)
            try st.run()
        }
    }

    /// Deletes up to `limit` failed deliveries whose grace ended before `now` (oldest expiry first);
    /// returns them.
    public func purge(expiredBy now: Instant, limit: Int) throws(StoreError) -> [FailedDelivery] {
        let expired = try rows(where: "WHERE expires < ?1 ORDER BY expires, seq LIMIT ?2") { st in
            st.bind(1, now.microseconds)
            st.bind(2, Int64(max(0, limit)))
        }
        for delivery in expired { try remove(seq: delivery.seq) }
        return expired
    }
}
