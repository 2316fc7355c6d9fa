// Every raw `sqlite3_*` call of schedd lives in this file (STYLE.md §2: one shim per C library).
import CSQLite

/// A SQLite failure: the result code, SQLite's message and what schedd was doing.
///
/// Bound arguments are never included: notification text is private (STYLE.md §4).
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The (extended) SQLite result code, e.g. 26 = `SQLITE_NOTADB`.
    public var code: Int32
    /// `sqlite3_errmsg` at the time of failure.
    public var message: String
    /// What was being done: `open /path`, `prepare`, the first words of the SQL…
    public var context: String
    public var description: String { "\(context): \(message) (SQLite result code \(code))" }
}

/// One `sqlite3 *` connection with a cache of prepared statements, reused for the life of the connection.
///
/// Not thread-safe: owned by one isolation domain (the engine's). `close()` finalizes every cached statement.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var cache: [String: SQLiteStatement] = [:]
    /// The same statements by the address of their SQL text's bytes: a literal's bytes never move, so a
    /// call from the same source line finds its statement by one Int hash and an O(1) identity compare
    /// instead of hashing the whole text (3.5% of the daemon's profile during a bulk push). Interpolated
    /// texts live on the heap; an address reused by another text fails the equality check and falls
    /// back to `cache`.
    private var byAddress: [UInt: SQLiteStatement] = [:]
    let path: String
    /// What the WAL hook records into (`recordWALFrames`), kept alive as long as the connection.
    private var walFrames: WALFrames?
    /// Whether a COMMIT syncs the write-ahead log (`PRAGMA synchronous = FULL`, the store's setting),
    /// or only writes it (`OFF`: the group commit's deferred sync, `SQLiteScheduleStore.committingWithoutSync`).
    /// OFF stays set after a deferred section (setting it costs a re-prepare of the PRAGMA, ~2 µs each
    /// way, per group); `step` and `execute` set FULL again before anything that may begin a write outside
    /// such a section (`syncBeforeWrite`), so every other commit still syncs.
    private(set) var syncsAtCommit = true
    /// More than 0 while commits may skip their sync (`withoutSyncAtCommit`).
    private var deferringSync = 0
    /// True while `setSyncsAtCommit` runs its PRAGMA (which `step` must not intercept).
    private var changingSync = false

    /// Opens an existing database file read-write. Never creates one: the caller creates the file itself
    /// (mode 0600) so that a path that vanished or is unreadable is an error, not a fresh empty database.
    init(openingExisting path: String, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        _ = Self.configured
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        if rc != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message, context: "cannot open database \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Savepoint sub-journals stay in memory up to this size, in one chunk (`csqlite_configure`); a larger
    /// one (a big PushBatch inside a multi-call group) spills to a temporary file. With `temp_store =
    /// MEMORY` SQLite ignores the setting and grows the sub-journal by 1 KiB chunks: one push in a
    /// savepoint copied its ~5 page pre-images through ~40 mallocs (~23k instructions per push, callgrind).
    ///
    /// Must stay below 128 KiB: the spill writes the in-memory chunk (of this size) to the file in one
    /// `write`, and SQLite's unix VFS masks every write's length to 17 bits (`seekAndWriteFd`, `nBuf &=
    /// 0x1ffff`, asserting it never needs to). With 4 MiB the first write stored `length mod 128 KiB`
    /// bytes, the next none, and SQLite reported the short write as SQLITE_FULL ("database or disk is
    /// full" with 80 GB free; `EngineGroupTests`). 120 KiB holds one push's ~5 pre-images of 8 KiB pages.
    static let statementJournalSpill: Int32 = 120 << 10

    /// Sets SQLite's process-wide directory for temporary files (a spilled sub-journal): `path`, or "" for
    /// SQLite's own search (SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp). `PRAGMA temp_store_directory`
    /// on a throwaway in-memory connection; SQLite requires that no other connection be open meanwhile, so
    /// only tests call it (EngineStatementFailureTests). Returns whether SQLite accepted it.
    static func setTemporaryDirectory(_ path: String) -> Bool {
        var db: OpaquePointer?
        guard sqlite3_open(":memory:", &db) == SQLITE_OK else { sqlite3_close(db); return false }
        defer { sqlite3_close(db) }
        let quoted = path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
        return sqlite3_exec(db, "PRAGMA temp_store_directory = '\(quoted)'", nil, nil, nil) == SQLITE_OK
    }

    /// SQLite's process-wide settings, applied once before the first connection opens.
    private static let configured: Bool = {
        precondition(statementJournalSpill < 0x20000, "SQLite writes at most 128 KiB - 1 bytes per write call")
        return csqlite_configure(statementJournalSpill) == SQLITE_OK
    }()

    /// Finalizes every cached statement and closes the connection. Idempotent.
    func close() {
        for statement in cache.values { statement.finalize() }
        cache.removeAll()
        byAddress.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    var isOpen: Bool { handle != nil }

    /// Sets `PRAGMA synchronous` to FULL (`true`) or OFF. Outside a transaction only; O(1) (a cached
    /// statement, which SQLite re-prepares on each run: a pragma acts when compiled).
    func setSyncsAtCommit(_ syncs: Bool) throws(SQLiteError) {
        guard syncs != syncsAtCommit else { return }
        changingSync = true
        defer { changingSync = false }
        try statement(syncs ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = OFF").run()
        syncsAtCommit = syncs
    }

    /// Runs `body` with commits that write the log without syncing it (`PRAGMA synchronous = OFF`) and
    /// returns whether they did; if OFF cannot be set, `body` runs with FULL (its commits synced) and the
    /// answer is false. OFF is left set afterwards, to be undone lazily by `syncBeforeWrite`. Outside a
    /// transaction only. O(1) around `body` (O(1) PRAGMAs per deferred section, none between two).
    func withoutSyncAtCommit<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> (result: R, deferred: Bool) {
        let deferred = (try? setSyncsAtCommit(false)) != nil
        if deferred { deferringSync += 1 }
        defer { if deferred { deferringSync -= 1 } }
        return (try body(), deferred)
    }

    /// Before `statement` steps outside a deferred section while OFF is still set: if no transaction is
    /// open and the statement may begin one that writes (a write in autocommit mode, `BEGIN`,
    /// `SAVEPOINT`), sets FULL first, so its COMMIT syncs. Reads in autocommit mode leave OFF (they commit
    /// nothing). A failure to set FULL fails the statement: nothing is written without its sync.
    fileprivate func syncBeforeWrite(_ statement: OpaquePointer?, sql: String) throws(SQLiteError) {
        guard !syncsAtCommit, deferringSync == 0, !changingSync, let handle, sqlite3_get_autocommit(handle) != 0 else { return }
        let writes = statement.map { sqlite3_stmt_readonly($0) == 0 } ?? true
        guard writes || sql.hasPrefix("BEGIN") || sql.hasPrefix("SAVEPOINT") else { return }
        try setSyncsAtCommit(true)
    }

    /// Runs `body` with `PRAGMA synchronous = FULL` (set back as it was after): a checkpoint run from a
    /// connection that does not sync at commit must still sync the database file before the log restarts.
    func withSyncAtCommit<R>(_ body: () throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        guard !syncsAtCommit else { return try body() }
        try setSyncsAtCommit(true)
        defer { try? setSyncsAtCommit(false) }
        return try body()
    }

    /// Installs a WAL hook recording into `frames` how many frames the write-ahead log holds after each
    /// commit. It replaces SQLite's autocheckpoint (the hook and `wal_autocheckpoint` are one slot): this
    /// connection's commits no longer checkpoint; whoever reads `frames` must (`checkpointPassive`).
    func recordWALFrames(into frames: WALFrames) {
        guard let handle else { return }
        walFrames = frames
        sqlite3_wal_hook(handle, { context, _, _, count in
            if let context { Unmanaged<WALFrames>.fromOpaque(context).takeUnretainedValue().record(Int(count)) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(frames).toOpaque())
    }

    /// `PRAGMA wal_checkpoint(PASSIVE)` of the main database: copies what it can of the WAL into the
    /// database file without waiting for any lock; returns the WAL's frames and how many are now copied.
    func checkpointPassive() throws(SQLiteError) -> (log: Int, copied: Int) {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: "checkpoint") }
        var log: Int32 = 0, copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        if rc != SQLITE_OK { throw error(rc, "checkpoint \(path)") }
        return (Int(log), Int(copied))
    }

    /// Number of prepared statements held in the cache (each distinct SQL text is prepared once).
    var cachedStatementCount: Int { cache.count }

    /// Statements handed out by `statement` (each use of one counts once): what a path costs in SQL, for tests.
    private(set) var statementsStarted = 0

    /// The virtual-machine operations SQLite has run in this connection's cached statements since each was
    /// prepared (`SQLITE_STMTSTATUS_VM_STEP`, summed): the work a path's queries do — rows and index entries
    /// visited, comparisons — whatever the machine's speed or load, for tests and benchmarks. Costs nothing
    /// on the statements' path (SQLite counts anyway); reading it is O(cached statements).
    var virtualMachineSteps: Int { cache.values.reduce(0) { $0 + $1.virtualMachineSteps } }

    /// The message of the most recent failure on this connection.
    var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "database is closed" }

    func error(_ code: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: code, message: lastMessage, context: context)
    }

    /// Runs SQL text that returns no rows (`sqlite3_exec`), possibly several statements.
    func execute(_ sql: String) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: sql) }
        if !syncsAtCommit { try syncBeforeWrite(nil, sql: sql) }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc, Self.summary(sql)) }
    }

    /// The cached prepared statement for `sql`, reset and with no bindings; prepared on first use.
    /// Complexity: one dictionary lookup after the first call.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        statementsStarted &+= 1
        let address = Self.textAddress(sql)
        if address != 0, let cached = byAddress[address], cached.sql == sql {
            cached.reset()
            return cached
        }
        if let cached = cache[sql] {
            // Interpolated texts bring new addresses: keep the map to a few per statement.
            if byAddress.count > 4 * cache.count + 64 { byAddress.removeAll(keepingCapacity: true) }
            if address != 0 { byAddress[address] = cached }
            cached.reset()
            return cached
        }
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", context: sql) }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else { throw error(rc, "prepare " + Self.summary(sql)) }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        cache[sql] = statement
        if address != 0 { byAddress[address] = statement }
        return statement
    }

    /// The address of a large string's UTF-8 bytes (a literal's, or a heap buffer's); 0 for small strings
    /// (kept inline, no stable address) and for texts without contiguous UTF-8.
    private static func textAddress(_ sql: String) -> UInt {
        guard sql.utf8.count > 15 else { return 0 }
        return sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
    }

    /// The rowid of the last successful INSERT on this connection.
    var lastInsertRowid: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// Rows changed since the connection opened, by every INSERT, UPDATE and DELETE including those of
    /// triggers (`sqlite3_total_changes64`). Only grows (a rollback does not take it back): equal values
    /// mean no row of any table changed in between.
    var totalChanges: Int64 { handle.map { sqlite3_total_changes64($0) } ?? 0 }

    /// Whether a transaction is open (`sqlite3_get_autocommit` is 0).
    var inTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// The first line of a statement, for error context (never its bound values).
    static func summary(_ sql: String) -> String {
        let line = sql.split(separator: "\n").first.map(String.init) ?? sql
        return line.count > 80 ? String(line.prefix(80)) + "…" : line
    }
}

/// A prepared statement (`sqlite3_stmt *`). Parameters and columns are 1-based and 0-based as in SQLite.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let connection: SQLiteConnection
    let sql: String

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle; self.connection = connection; self.sql = sql
    }

    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// `SQLITE_STMTSTATUS_VM_STEP` of this statement since it was prepared (not reset by `reset`).
    var virtualMachineSteps: Int { handle.map { Int(sqlite3_stmt_status($0, SQLITE_STMTSTATUS_VM_STEP, 0)) } ?? 0 }

    /// `sqlite3_reset` + `sqlite3_clear_bindings`.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Int?) { bind(index, value.map(Int64.init)) }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds text by its UTF-8 bytes (embedded NULs kept); SQLite copies it (`SQLITE_TRANSIENT`).
    func bind(_ index: Int32, _ value: String?) {
        guard var text = value else { sqlite3_bind_null(handle, index); return }
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                let chars = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                sqlite3_bind_text(handle, index, chars, Int32(bytes.count), csqlite_transient())
            } else {
                sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
            }
        }
    }

    /// Binds bytes as a BLOB; SQLite copies them (`SQLITE_TRANSIENT`). nil binds NULL.
    /// Binds `bytes` as a BLOB; SQLite copies them (`SQLITE_TRANSIENT`), so they may live on the stack.
    func bind(_ index: Int32, blob bytes: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                          csqlite_transient())
    }

    func bind(_ index: Int32, blob value: [UInt8]?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        _ = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                              csqlite_transient())
        }
    }

    /// Steps once: true when a row is available, false when done.
    func step() throws(SQLiteError) -> Bool {
        if !connection.syncsAtCommit { try connection.syncBeforeWrite(handle, sql: sql) }
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let failure = connection.error(rc, SQLiteConnection.summary(sql))
        sqlite3_reset(handle)
        throw failure
    }

    /// Steps a statement that returns no rows, then resets it.
    func run() throws(SQLiteError) {
        _ = try step()
        sqlite3_reset(handle)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func isBlob(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_BLOB }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    func string(_ column: Int32) -> String { optionalString(column) ?? "" }

    /// The column's bytes (a BLOB or TEXT); nil for NULL.
    func optionalBlob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    func optionalString(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
