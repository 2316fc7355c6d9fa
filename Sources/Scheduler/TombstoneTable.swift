import SchedCalendar

/// Table `tombstones`: the ids and runs an app cancelled (CONTRACT §1), so that a later push of them is
/// refused until they expire or the app forgets them. Keyed `(app, kind, name)`, the app as its id text.
public final class TombstoneTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// Leaves (or refreshes to the later `at`) the tombstone of `name`. O(log n).
    public func add(app: String, _ kind: TombstoneKind, _ name: String, at: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            _ = try internApp(app)  // the byte quota's trigger counts it under the app's number
            let st = try db.statement("""
                INSERT INTO tombstones(app, kind, name, created_at) VALUES(?4, ?1, ?2, ?3)
                ON CONFLICT(app, kind, name) DO UPDATE SET created_at = max(created_at, excluded.created_at)
                """)
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, at.microseconds)
            st.bind(4, app)
            try st.run()
        }
    }

    public func contains(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement("SELECT 1 FROM tombstones WHERE app = ?3 AND kind = ?1 AND name = ?2")
            defer { st.reset() }
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, app)
            return try st.step()
        }
    }

    /// When the tombstone was left (the latest cancel's time), or nil when there is none. O(log n).
    public func created(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("SELECT created_at FROM tombstones WHERE app = ?3 AND kind = ?1 AND name = ?2")
            defer { st.reset() }
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, app)
            return try st.step() ? Instant(microseconds: st.int64(0)) : nil
        }
    }

    /// Makes `id` of `app` new again: removes its id tombstone, its applied digests and its finished
    /// record, so that a push under it is judged as if none had come before. O(log n + digests of id).
    public func forgetID(app: String, id: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let tombstone = try db.statement("DELETE FROM tombstones WHERE app = ?2 AND kind = 0 AND name = ?1")
            tombstone.bind(1, id)
            tombstone.bind(2, app)  // tombstones keep the app id as text
            try tombstone.run()
            // finished and applied key the app by its number. Order matters: deleting the finished row
            // moves its digest into applied (trigger finished_forget), so applied is cleared after it.
            let number = try lookupApp(app)
            for statement in ["DELETE FROM finished WHERE app = ?2 AND id = ?1",
                              "DELETE FROM applied WHERE app = ?2 AND id = ?1"] {
                let st = try db.statement(statement)
                st.bind(1, id)
                st.bind(2, number)
                try st.run()
            }
        }
    }

    /// Deletes tombstones created before `cutoff`; returns how many.
    @discardableResult
    public func purge(createdBefore cutoff: Instant) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM tombstones WHERE created_at < ?1")
            st.bind(1, cutoff.microseconds)
            try st.run()
            return db.changes
        }
    }
}
