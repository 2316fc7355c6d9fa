/// The store's schema and its forward migrations, versioned by `PRAGMA user_version`.
///
/// Migration N takes a database at version N-1 to version N; each runs in its own transaction
/// together with the `user_version` bump, so a crash mid-migration leaves the previous version intact.
/// A database whose version is newer than `StoreSchema.version` is refused (never downgraded).
enum StoreSchema {
    /// The schema version this build writes.
    static var version: Int64 { Int64(migrations.count) }

    /// `migrations[i]` upgrades version i to i+1. Append only; never edit a shipped migration.
    static let migrations: [String] = [
        // 1: initial schema.
        """
        CREATE TABLE schedules(
            key INTEGER PRIMARY KEY,         -- the rowid: the timer wheel's key
            id TEXT NOT NULL UNIQUE,         -- also serves run lookups: run R = id R or ids in ['R:', 'R;')
            kind INTEGER NOT NULL,           -- StoredTriggerKind: 0 fixed at, 1 floating at, 2 calendar
            spec TEXT,                       -- calendar expression as sent
            at_instant INTEGER,              -- fixed at: microseconds since the epoch
            at_offset INTEGER,               -- fixed at: the sender's UTC offset, for display
            wall INTEGER,                    -- floating at: wall time as local microseconds since 1970-01-01T00:00
            zone TEXT,                       -- pinned zone; NULL = follows the device zone
            until_instant INTEGER,
            until_wall INTEGER,
            until_zone TEXT,
            next_due INTEGER NOT NULL,       -- microseconds since the epoch
            last_due INTEGER,
            title TEXT NOT NULL,
            body TEXT,
            data TEXT,
            cancel_on TEXT,                  -- length-prefixed list (see StoreCoding); indexed by schedule_events
            grace INTEGER,
            urgency INTEGER NOT NULL,
            icon TEXT,
            category TEXT,
            actions TEXT,                    -- length-prefixed id/title pairs
            message_id TEXT,
            fingerprint TEXT NOT NULL,
            stored_at INTEGER NOT NULL
        );
        CREATE INDEX schedules_by_next ON schedules(next_due, key);
        CREATE TABLE schedule_events(
            event TEXT NOT NULL,
            key INTEGER NOT NULL,
            PRIMARY KEY(event, key)
        ) WITHOUT ROWID;
        CREATE TABLE tombstones(
            kind INTEGER NOT NULL,           -- TombstoneKind: 0 id, 1 run
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY(kind, name)
        ) WITHOUT ROWID;
        CREATE INDEX tombstones_by_age ON tombstones(created_at);
        CREATE TABLE finished(
            id TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            outcome TEXT NOT NULL,
            due INTEGER,
            finished_at INTEGER NOT NULL,
            keep_until INTEGER NOT NULL,
            title TEXT,
            message_id TEXT,
            data TEXT
        ) WITHOUT ROWID;
        CREATE INDEX finished_by_expiry ON finished(keep_until);
        CREATE TABLE history(
            seq INTEGER PRIMARY KEY,         -- append order
            id TEXT NOT NULL,
            event TEXT NOT NULL,
            at INTEGER NOT NULL,
            due INTEGER,
            reason TEXT,
            late REAL,
            title TEXT,
            message_id TEXT,
            data TEXT
        );
        CREATE TABLE failed_deliveries(
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            title TEXT NOT NULL,
            body TEXT,
            urgency INTEGER NOT NULL,
            icon TEXT,
            category TEXT,
            actions TEXT,
            data TEXT,
            message_id TEXT,
            due INTEGER NOT NULL,
            grace INTEGER
        );
        CREATE INDEX failed_deliveries_by_id ON failed_deliveries(id);
        CREATE TABLE meta(
            name TEXT PRIMARY KEY,           -- 'device_zone': the zone floating schedules were resolved in
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
    ]

    /// Brings `db` to `version`, or throws when it is newer or unreadable.
    static func migrate(_ db: SQLiteConnection) throws(StoreError) {
        var current: Int64 = 0
        do throws(SQLiteError) {
            let statement = try db.statement("PRAGMA user_version")
            if try statement.step() { current = statement.int64(0) }
            statement.reset()
        } catch {
            throw StoreError(.corrupt, "\(db.path) is not a usable schedd database: \(error)")
        }
        if current > version {
            throw StoreError(.corrupt, "\(db.path) has schema version \(current), newer than this schedd understands "
                + "(\(version)); refusing to open it")
        }
        if current < 0 { throw StoreError(.corrupt, "\(db.path) has an invalid schema version \(current)") }
        guard current < version else { return }
        for target in (current + 1)...version {
            do {
                try db.execute("BEGIN IMMEDIATE")
                try db.execute(migrations[Int(target - 1)])
                try db.execute("PRAGMA user_version = \(target)")
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw StoreError(.io, "\(db.path): migration to schema version \(target) failed: \(error)")
            }
        }
    }
}
