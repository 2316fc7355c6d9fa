import SchedCalendar

/// Table `push_registrations` (schema v3): one UnifiedPush registration per app; the token is unique across
/// rows. Each call is one statement: in autocommit (durable when it returns, `synchronous = FULL`) unless
/// the caller opened a transaction. Bounded: one row per app.
public final class RegistrationTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    static let columns = """
        app, token, description, distributor, endpoint, private_key, public_key, auth_secret, created, updated, \
        rejected, last_rejected_at, last_rejected_id, last_rejected_reason
        """

    /// Every registration, by app id.
    public func all() throws(StoreError) -> [PushRegistrationRecord] {
        try registrations(where: "1", bind: nil)
    }

    public func record(app: String) throws(StoreError) -> PushRegistrationRecord? {
        try registrations(where: "app = ?1", bind: app).first
    }

    public func record(token: String) throws(StoreError) -> PushRegistrationRecord? {
        try registrations(where: "token = ?1", bind: token).first
    }

    /// Inserts or replaces the registration of `r.app`; throws when `r.token` belongs to another app.
    public func save(_ r: PushRegistrationRecord) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO push_registrations(\(Self.columns))
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                ON CONFLICT(app) DO UPDATE SET token = ?2, description = ?3, distributor = ?4, endpoint = ?5,
                    private_key = ?6, public_key = ?7, auth_secret = ?8, created = ?9, updated = ?10, rejected = ?11,
                    last_rejected_at = ?12, last_rejected_id = ?13, last_rejected_reason = ?14
                """)
            // Upsert by app only: a token already used by another app fails (UNIQUE) instead of
            // replacing that app's row, which INSERT OR REPLACE would do.
            st.bind(1, r.app)
            st.bind(2, r.token)
            st.bind(3, r.description)
            st.bind(4, r.distributor)
            st.bind(5, r.endpoint)
            st.bind(6, r.privateKey)
            st.bind(7, r.publicKey)
            st.bind(8, r.authSecret)
            st.bind(9, r.created.microseconds)
            st.bind(10, r.updated.microseconds)
            st.bind(11, r.rejected)
            st.bind(12, r.lastRejection?.at.microseconds)
            st.bind(13, r.lastRejection?.messageID)
            st.bind(14, r.lastRejection?.reason)
            try st.run()
        }
    }

    /// Removes the registration of `app` (its replay window goes with it); false when there was none.
    @discardableResult
    public func delete(app: String) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement("DELETE FROM push_registrations WHERE app = ?1")
            st.bind(1, app)
            try st.run()
            return db.changes > 0
        }
    }

    /// Counts `count` rejected pushes for `app` and keeps `rejection`, the last of them, as the latest.
    public func recordRejection(app: String, _ rejection: PushRejection, count: Int64 = 1) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                UPDATE push_registrations SET rejected = rejected + ?5, last_rejected_at = ?2,
                    last_rejected_id = ?3, last_rejected_reason = ?4 WHERE app = ?1
                """)
            st.bind(1, app)
            st.bind(2, rejection.at.microseconds)
            st.bind(3, rejection.messageID)
            st.bind(4, rejection.reason)
            st.bind(5, count)
            try st.run()
        }
    }

    private func registrations(where condition: String, bind value: String?) throws(StoreError) -> [PushRegistrationRecord] {
        try sql { () throws(SQLiteError) -> [PushRegistrationRecord] in
            let st = try db.statement("SELECT \(Self.columns) FROM push_registrations WHERE \(condition) ORDER BY app")
            defer { st.reset() }
            if let value { st.bind(1, value) }
            var out: [PushRegistrationRecord] = []
            while try st.step() {
                let rejection = st.optionalInt64(11).map {
                    PushRejection(at: Instant(microseconds: $0), messageID: st.string(12), reason: st.string(13))
                }
                out.append(PushRegistrationRecord(
                    app: st.string(0), token: st.string(1), description: st.string(2), distributor: st.optionalString(3),
                    endpoint: st.optionalString(4), privateKey: st.string(5), publicKey: st.string(6),
                    authSecret: st.string(7), created: Instant(microseconds: st.int64(8)),
                    updated: Instant(microseconds: st.int64(9)), rejected: st.int64(10), lastRejection: rejection))
            }
            return out
        }
    }
}
