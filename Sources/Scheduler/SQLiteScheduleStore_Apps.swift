import SchedCalendar

// Apps as numbers (schema v6 `apps`): the store's rows refer to an app by `apps.n`; names are looked up
// once and cached for the connection's life. A rollback clears the cache (an app interned by a rolled-back
// transaction no longer has its row).
extension SQLiteScheduleStore {
    /// The number of `app`, nil when it has none yet (then it has no rows). O(1) once cached.
    func appNumber(_ app: String) throws(SQLiteError) -> Int64? {
        // A batch is one app: a string comparison before any hashing.
        if let last = lastApp, last.name == app { return last.n }
        if let n = appNumbers[app] {
            lastApp = (app, n)
            return n
        }
        let st = try db.statement("SELECT n FROM apps WHERE name = ?1")
        defer { st.reset() }
        st.bind(1, app)
        guard try st.step() else { return nil }
        let n = st.int64(0)
        appNumbers[app] = n
        appNames[n] = app
        return n
    }

    /// For lookups: the number of `app`, or -1 (which no row has) when it has none.
    func lookupApp(_ app: String) throws(SQLiteError) -> Int64 { try appNumber(app) ?? -1 }

    /// The number of `app`, given one when it has none (inside the caller's transaction).
    func internApp(_ app: String) throws(SQLiteError) -> Int64 {
        if let n = try appNumber(app) { return n }
        let st = try db.statement("INSERT INTO apps(name) VALUES(?1)")
        st.bind(1, app)
        try st.run()
        let n = db.lastInsertRowid
        appNumbers[app] = n
        appNames[n] = app
        return n
    }

    /// The name of app number `n` ("" for a number without a row, which the schema never leaves).
    func appName(_ n: Int64) throws(SQLiteError) -> String {
        if let name = appNames[n] { return name }
        let st = try db.statement("SELECT name FROM apps WHERE n = ?1")
        defer { st.reset() }
        st.bind(1, n)
        guard try st.step() else { return "" }
        let name = st.string(0)
        appNames[n] = name
        appNumbers[name] = n
        return name
    }

    /// After a rollback: names and numbers are read again from the database.
    func forgetApps() {
        lastApp = nil
        appNumbers.removeAll()
        appNames.removeAll()
    }
}
