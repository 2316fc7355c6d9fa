import SchedCalendar

/// Table `applied`: the digests of pushes applied before that are no longer any row's current digest
/// (CONTRACT §1: a push applied once is `duplicate` whatever came after it; schema v6).
public final class AppliedTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// `applied` holds the digests that are no longer current (schema v6): a digest equal to the pending
    /// schedule's or the finished record's is already kept there, and is not written again.
    public func record(app: String, id: String, digest: String, at: Instant) throws(StoreError) {
        if try isCurrent(app: app, id: id, digest: digest) { return }
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO applied(app, id, digest, applied_at) VALUES(?4, ?1, ?2, ?3)
                ON CONFLICT(app, id, digest) DO UPDATE SET applied_at = max(applied_at, excluded.applied_at)
                """)
            st.bind(1, id)
            StoreRowCoding.bindDigest(digest, 2, st)
            st.bind(3, at.microseconds)
            st.bind(4, try internApp(app))
            try st.run()
        }
    }

    /// Whether `digest` was applied to `id` of `app` before (CONTRACT §1).
    /// One statement: the digest in `applied`, or the current one of the pending or finished row. Three seeks.
    /// (A push asks `pushLookup`, which answers this too.)
    public func contains(app: String, id: String, digest: String) throws(StoreError) -> Bool {
        try hasDigest(app: app, id: id, digest: digest, inApplied: true)
    }

    /// Whether `digest` is the pending schedule's or the finished record's of (app, id). Two key lookups.
    private func isCurrent(app: String, id: String, digest: String) throws(StoreError) -> Bool {
        try hasDigest(app: app, id: id, digest: digest, inApplied: false)
    }

    /// `isCurrent`, or also `applied` when `inApplied`: one statement either way.
    private func hasDigest(app: String, id: String, digest: String, inApplied: Bool) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement(inApplied ? """
                SELECT EXISTS(SELECT 1 FROM applied WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM schedules WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM finished WHERE app = ?1 AND id = ?2 AND digest = ?3)
                """ : """
                SELECT EXISTS(SELECT 1 FROM schedules WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM finished WHERE app = ?1 AND id = ?2 AND digest = ?3)
                """)
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            st.bind(2, id)
            StoreRowCoding.bindDigest(digest, 3, st)
            return try st.step() && st.int64(0) != 0
        }
    }

    /// Deletes up to `limit` digests applied before `cutoff` whose id is neither pending nor finished.
    @discardableResult
    public func purge(before cutoff: Instant, limit: Int) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            // Oldest first by the age index; ids still pending or finished keep every digest they had.
            let st = try db.statement("""
                DELETE FROM applied WHERE (app, id, digest) IN (SELECT a.app, a.id, a.digest FROM applied AS a
                    WHERE a.applied_at < ?1
                      AND NOT EXISTS(SELECT 1 FROM schedules AS s WHERE s.app = a.app AND s.id = a.id)
                      AND NOT EXISTS(SELECT 1 FROM finished AS f WHERE f.app = a.app AND f.id = a.id)
                    ORDER BY a.applied_at LIMIT ?2)
                """)
            st.bind(1, cutoff.microseconds)
            st.bind(2, Int64(max(0, limit)))
            try st.run()
            return db.changes
        }
    }
}
