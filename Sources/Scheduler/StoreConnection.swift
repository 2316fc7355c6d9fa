import SchedCalendar

/// The one SQLite connection every table of the store shares: its statement cache (`SQLiteConnection`),
/// the state of the open transaction as far as statements need it, and the `apps` numbers.
///
/// Owned by `SQLiteScheduleStore`, which opens, commits and closes it; the tables (`ScheduleTable`,
/// `HistoryTable` …) hold it and run their statements through `sql`, so a statement of any table joins the
/// store's open transaction. Not thread-safe (the daemon's loop thread only).
final class StoreConnection {
    let db: SQLiteConnection
    /// Depth of `SQLiteScheduleStore.transaction` calls (0: none open; statements autocommit).
    var transactionDepth = 0
    /// Set when SQLite rolled the open transaction back by itself — it does on SQLITE_IOERR, and on
    /// SQLITE_FULL or SQLITE_NOMEM in a statement that kept no statement journal — while `transaction`
    /// is still inside its body. Every later statement would run in autocommit mode: committed alone, with
    /// no undo and no answer that says so (a group member after it would be stored but answered failed,
    /// and not armed). So until the outermost `transaction` ends, every store call fails instead, and that
    /// transaction fails whole.
    var transactionLost = false
    /// App names and numbers (schema v6 `apps`), cached for the connection's life; a rollback clears them
    /// (`forgetApps`: an app interned by a rolled-back transaction no longer has its row).
    private var appNumbers: [String: Int64] = [:]
    private var appNames: [Int64: String] = [:]
    private var lastApp: (name: String, n: Int64)?

    init(_ db: SQLiteConnection) { self.db = db }

    static let lostTransactionError = StoreError(
        .io, "SQLite rolled this transaction back after a failed statement (disk full or I/O error): nothing of it is stored")

    /// Runs SQLite calls, turning their errors into `StoreError.io` (`.corrupt` for SQLITE_CORRUPT and
    /// SQLITE_NOTADB: damaged pages are found when they are read, since opening reads only the schema).
    @inline(__always)
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R {
        if transactionLost { throw Self.lostTransactionError }
        do { return try body() } catch {
            if transactionDepth > 0 && !db.inTransaction { transactionLost = true }
            let primary = error.code & 0xFF
            throw StoreError(primary == 11 || primary == 26 ? .corrupt : .io, error)
        }
    }

    // MARK: Apps as numbers (schema v6 `apps`: the rows refer to an app by `apps.n`)

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

/// A table (or a role over a few tables) of the store: a small type over the shared `StoreConnection`.
/// The helpers below are the same for every table, so each table's body is only its own statements.
protocol StoreTable {
    var connection: StoreConnection { get }
}

extension StoreTable {
    var db: SQLiteConnection { connection.db }

    @inline(__always)
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R { try connection.sql(body) }

    /// For lookups: the number of `app`, or -1 (which no row has) when it has none.
    func lookupApp(_ app: String) throws(SQLiteError) -> Int64 { try connection.appNumber(app) ?? -1 }
    func internApp(_ app: String) throws(SQLiteError) -> Int64 { try connection.internApp(app) }
    func appName(_ n: Int64) throws(SQLiteError) -> String { try connection.appName(n) }

    /// Runs a cached SELECT of `StoreRowCoding.columns` from `schedules` with `bind` applied, collecting every row.
    func selectSchedules(_ whereClause: String, _ bind: (SQLiteStatement) -> Void) throws(StoreError) -> [StoredSchedule] {
        try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("SELECT \(StoreRowCoding.columns) FROM schedules \(whereClause)")
            defer { st.reset() }
            bind(st)
            return try readSchedules(st)
        }
    }

    /// Every row of a stepped-from-the-start SELECT of `StoreRowCoding.columns`.
    func readSchedules(_ st: SQLiteStatement) throws(SQLiteError) -> [StoredSchedule] {
        var rows: [StoredSchedule] = []
        while try st.step() { rows.append(StoreRowCoding.read(st, appName: try appName(st.int64(1)))) }
        return rows
    }
}
