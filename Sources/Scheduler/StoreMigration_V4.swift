/// Schema version 4: a namespace per app (CONTRACT §8), the envelope's extras, what opening ran, snoozes.
///
/// - Every row gets an `app` (a reverse-DNS app id). Rows from before apps existed belong to the
///   default app (`Engine.defaultApp`, "org.schedd.Default"), so a database of one namespace becomes
///   the default app's namespace unchanged.
/// - Keys that were `id` become `(app, id)`: `schedules` (UNIQUE), `finished`, `tombstones`
///   (`(app, kind, name)`) and `applied` (`(app, id, digest)`) are rebuilt (SQLite cannot change a key in
///   place); `schedules` keeps its rowids, which are the timer wheel's keys. `schedule_events` needs no
///   app: it points at schedule rows, which carry it.
/// - `history` and `failed_deliveries` get `app`; `history` also `ran` and `ok` (what opening a
///   notification ran and whether it worked, for `opened`).
/// - `schedules` and `failed_deliveries` get `extras`: `bk.deepLink`, `bk.action`, `bk.image` and
///   `snoozeSeconds` as one JSON object (`StoreCoding.encode(extras:)`; NULL when none).
/// - `snoozed`: notifications snoozed by the person, shown again at `until` (durable across restarts).
extension StoreMigration {
    static let v4 = StoreMigration(version: 4, summary: "a namespace per app, extras, opened details, snoozes") {
        (db) throws(SQLiteError) in
        let app = "'" + Engine.defaultApp + "'"
        try db.execute("""
            CREATE TABLE schedules_v3(
                key INTEGER PRIMARY KEY,         -- the rowid: the timer wheel's key
                app TEXT NOT NULL,               -- the app the schedule belongs to
                id TEXT NOT NULL,                -- unique per app; run R = id R or ids in ['R:', 'R;') of that app
                kind INTEGER NOT NULL,
                spec TEXT,
                at_instant INTEGER,
                at_offset INTEGER,
                wall INTEGER,
                zone TEXT,
                until_instant INTEGER,
                until_wall INTEGER,
                until_zone TEXT,
                next_due INTEGER NOT NULL,
                last_due INTEGER,
                title TEXT NOT NULL,
                body TEXT,
                data TEXT,
                cancel_on TEXT,
                grace INTEGER,
                urgency INTEGER NOT NULL,
                icon TEXT,
                category TEXT,
                actions TEXT,
                message_id TEXT,
                fingerprint TEXT NOT NULL,
                stored_at INTEGER NOT NULL,
                extras TEXT,                     -- NotificationExtras as JSON; NULL = none
                UNIQUE(app, id)
            );
            INSERT INTO schedules_v3(key, app, id, kind, spec, at_instant, at_offset, wall, zone, until_instant,
                until_wall, until_zone, next_due, last_due, title, body, data, cancel_on, grace, urgency, icon,
                category, actions, message_id, fingerprint, stored_at, extras)
            SELECT key, \(app), id, kind, spec, at_instant, at_offset, wall, zone, until_instant, until_wall,
                until_zone, next_due, last_due, title, body, data, cancel_on, grace, urgency, icon, category,
                actions, message_id, fingerprint, stored_at, NULL FROM schedules;
            DROP TABLE schedules;
            ALTER TABLE schedules_v3 RENAME TO schedules;
            CREATE INDEX schedules_by_next ON schedules(next_due, key);
            CREATE INDEX schedules_by_app_next ON schedules(app, next_due, key);

            CREATE TABLE tombstones_v3(
                app TEXT NOT NULL,
                kind INTEGER NOT NULL,
                name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY(app, kind, name)
            ) WITHOUT ROWID;
            INSERT INTO tombstones_v3 SELECT \(app), kind, name, created_at FROM tombstones;
            DROP TABLE tombstones;
            ALTER TABLE tombstones_v3 RENAME TO tombstones;
            CREATE INDEX tombstones_by_age ON tombstones(created_at);

            CREATE TABLE finished_v3(
                app TEXT NOT NULL,
                id TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                outcome TEXT NOT NULL,
                due INTEGER,
                finished_at INTEGER NOT NULL,
                keep_until INTEGER NOT NULL,
                title TEXT,
                message_id TEXT,
                data TEXT,
                PRIMARY KEY(app, id)
            ) WITHOUT ROWID;
            INSERT INTO finished_v3 SELECT \(app), id, fingerprint, outcome, due, finished_at, keep_until, title,
                message_id, data FROM finished;
            DROP TABLE finished;
            ALTER TABLE finished_v3 RENAME TO finished;
            CREATE INDEX finished_by_expiry ON finished(keep_until);

            CREATE TABLE applied_v3(
                app TEXT NOT NULL,
                id TEXT NOT NULL,
                digest TEXT NOT NULL,
                applied_at INTEGER NOT NULL,
                PRIMARY KEY(app, id, digest)
            ) WITHOUT ROWID;
            INSERT INTO applied_v3 SELECT \(app), id, digest, applied_at FROM applied;
            DROP TABLE applied;
            ALTER TABLE applied_v3 RENAME TO applied;
            CREATE INDEX applied_by_age ON applied(applied_at);

            ALTER TABLE history ADD COLUMN app TEXT NOT NULL DEFAULT \(app);
            ALTER TABLE history ADD COLUMN ran TEXT;
            ALTER TABLE history ADD COLUMN ok INTEGER;
            CREATE INDEX history_by_app ON history(app, seq);

            ALTER TABLE failed_deliveries ADD COLUMN app TEXT NOT NULL DEFAULT \(app);
            ALTER TABLE failed_deliveries ADD COLUMN extras TEXT;
            DROP INDEX failed_deliveries_by_id;
            CREATE INDEX failed_deliveries_by_id ON failed_deliveries(app, id);

            CREATE TABLE snoozed(
                seq INTEGER PRIMARY KEY,
                app TEXT NOT NULL,
                id TEXT NOT NULL,
                until INTEGER NOT NULL,          -- shown again at this instant (microseconds since the epoch)
                title TEXT NOT NULL,
                body TEXT,
                urgency INTEGER NOT NULL,
                icon TEXT,
                category TEXT,
                actions TEXT,
                data TEXT,
                message_id TEXT,
                due INTEGER NOT NULL,            -- the due of the firing that was snoozed
                extras TEXT
            );
            CREATE INDEX snoozed_by_until ON snoozed(until, seq);
            CREATE INDEX snoozed_by_id ON snoozed(app, id);
            """)
    }
}
