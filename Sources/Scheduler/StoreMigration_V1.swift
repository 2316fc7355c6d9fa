/// Schema version 1: the initial schema (every release before the migration framework wrote it).
/// Shipped: never edit it. Tests/Support/fixtures/store-v1.sqlite is a database of this version.
extension StoreMigration {
    static let v1 = StoreMigration(version: 1, summary: "initial schema") { (db) throws(SQLiteError) in
        try db.execute(
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
            """)
    }
}
