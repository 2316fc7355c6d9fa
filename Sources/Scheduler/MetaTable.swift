import SchedCalendar

/// Tables `meta` (named values) and `zones` (the content hash of each zone in use when its schedules were
/// last resolved).
public final class MetaTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// The value of `name` in `meta`, if set.
    public func value(_ name: String) throws(StoreError) -> String? {
        try sql { () throws(SQLiteError) -> String? in
            let st = try db.statement("SELECT value FROM meta WHERE name = ?1")
            defer { st.reset() }
            st.bind(1, name)
            return try st.step() ? st.string(0) : nil
        }
    }

    public func set(_ name: String, _ value: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("INSERT OR REPLACE INTO meta(name, value) VALUES(?1, ?2)")
            st.bind(1, name)
            st.bind(2, value)
            try st.run()
        }
    }

    /// Zones in use and the content hash each had when schedules were last resolved in it.
    public func zoneHashes() throws(StoreError) -> [String: String] {
        try sql { () throws(SQLiteError) -> [String: String] in
            let st = try db.statement("SELECT name, content_hash FROM zones")
            defer { st.reset() }
            var hashes: [String: String] = [:]
            while try st.step() { hashes[st.string(0)] = st.string(1) }
            return hashes
        }
    }

    public func setZoneHash(_ name: String, _ hash: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("INSERT OR REPLACE INTO zones(name, content_hash) VALUES(?1, ?2)")
            st.bind(1, name)
            st.bind(2, hash)
            try st.run()
        }
    }
}
