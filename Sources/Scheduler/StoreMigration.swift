/// One step of the store's schema history: takes a database at `version - 1` to `version`.
///
/// Steps are Swift code over the connection (plain SQL, or SQL with Swift computing values such as
/// digests), so a step can rebuild a table, move data and convert columns. Each runs in its own
/// `BEGIN IMMEDIATE … COMMIT` together with the `PRAGMA user_version` bump: a crash or an error
/// mid-step leaves the database at the previous version, whole. docs/store.md says how to add one.
struct StoreMigration: Sendable {
    /// The version this step produces (the first is 1).
    let version: Int64
    /// One line for logs and errors: what the step changes.
    let summary: String
    /// The step's work, run inside the step's transaction. Must not COMMIT, ROLLBACK or VACUUM.
    let apply: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void
}

/// The store's schema and its forward migrations, versioned by `PRAGMA user_version`.
///
/// A database whose version is newer than `StoreSchema.version` is refused (never downgraded). A new
/// database gets `auto_vacuum = INCREMENTAL` before its first table; an older one without it is converted
/// once, by a `VACUUM` after the steps (outside any transaction, as SQLite requires; VACUUM is atomic).
enum StoreSchema {
    /// Every step, in order: `steps[i].version == i + 1`. Append only; never edit a shipped step.
    static let steps: [StoreMigration] = [.v1, .v2, .v3, .v4, .v5, .v6, .v7, .v8, .v9, .v10, .v11, .v12]

    /// The schema version this build writes.
    static var version: Int64 { Int64(steps.count) }

    /// The database's `PRAGMA user_version`.
    static func currentVersion(_ db: SQLiteConnection) throws(SQLiteError) -> Int64 {
        let statement = try db.statement("PRAGMA user_version")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// Brings `db` to the last version of `steps` (default: this build's), or throws when it is newer
    /// or a step fails (then the database stays at the version of the last step that committed).
    /// `steps` is a parameter so tests can stop at an older version or run a failing step.
    static func migrate(_ db: SQLiteConnection, steps: [StoreMigration] = StoreSchema.steps) throws(StoreError) {
        for (index, step) in steps.enumerated() where step.version != Int64(index + 1) {
            throw StoreError(.corrupt, "schema step \(index + 1) claims version \(step.version)")
        }
        let target = Int64(steps.count)
        let current: Int64
        do { current = try currentVersion(db) } catch {
            throw StoreError(.corrupt, "\(db.path) is not a usable schedd database: \(error)")
        }
        if current > target {
            throw StoreError(.corrupt, "\(db.path) has schema version \(current), newer than this schedd understands "
                + "(\(target)); refusing to open it")
        }
        if current < 0 { throw StoreError(.corrupt, "\(db.path) has an invalid schema version \(current)") }
        if current == 0 {
            // An empty file: incremental auto-vacuum must be chosen before the first table exists.
            do { try db.execute("PRAGMA auto_vacuum = INCREMENTAL") } catch { throw StoreError(.io, error) }
        }
        for step in steps.dropFirst(Int(current)) {
            do {
                try db.execute("BEGIN IMMEDIATE")
                try step.apply(db)
                try db.execute("PRAGMA user_version = \(step.version)")
                try db.execute("COMMIT")
            } catch {
                if db.inTransaction { try? db.execute("ROLLBACK") }
                throw StoreError(.io, "\(db.path): migration to schema version \(step.version) (\(step.summary)) "
                    + "failed: \(error)")
            }
        }
        try enableIncrementalVacuum(db)
    }

    /// Converts a database written without incremental auto-vacuum (schema v1 files) once; a no-op after.
    static func enableIncrementalVacuum(_ db: SQLiteConnection) throws(StoreError) {
        do throws(SQLiteError) {
            let mode = try db.statement("PRAGMA auto_vacuum")
            let current = try mode.step() ? mode.int64(0) : 0
            mode.reset()
            guard current != 2 else { return }
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
        } catch {
            throw StoreError(.io, "\(db.path): turning on incremental auto-vacuum failed: \(error)")
        }
    }
}
