import SchedCalendar

/// Schema version 6: compact rows (issue 19; the byte budget and every query's plan are in docs/store.md).
///
/// - `apps`: every app id once; `schedules`, `schedule_events`, `finished`, `applied` and `pending_counts`
///   refer to an app by its number (`apps.n`) instead of repeating its reverse-DNS text in rows and indexes.
/// - Digests are 32-byte blobs (`StoreRowCoding.bindDigest`), not 64 hex characters.
/// - A digest is kept once: the current one of a pending schedule in `schedules.digest`, of a finished one
///   in `finished.digest`; `applied` holds only digests no longer current. Triggers move a digest into
///   `applied` when its schedule row is deleted (at its `next_due`) or its finished row is replaced or
///   purged (at its `finished_at`), in the same transaction.
/// - `schedules` keeps the queried columns (app, id, next_due, kind, digest, texts, zones) and one `detail`
///   column holding only what differs from the defaults (`StoreRowCoding`): a one-shot at a UTC instant
///   stores no `at_instant` (it is `next_due`), no offset, urgency, grace or stored-at.
/// - Indexes only for queries that run: `(app, id)` unique, `(app, next_due, key)` for paging, restoring
///   the wheel and the all-apps merge; partial indexes on `zone`/`until_zone` for the zones in use; the
///   global `(next_due, key)` index is gone (the all-apps listing merges the per-app ranges).
/// - `schedule_events` carries the app: `(app, event, key)`, the key of `track`'s lookup.
/// - `pending_counts` keeps the stored bytes per app too (the byte quota, CONTRACT §8); `history_counts`
///   the history records per app, so the bound is enforced in the inserting transaction.
extension StoreMigration {
    static let v6 = StoreMigration(version: 6, summary: "compact rows: interned apps, digest blobs, kept-once digests") {
        (db) throws(SQLiteError) in
        try db.execute("""
            CREATE TABLE apps(
                n INTEGER PRIMARY KEY,           -- the number rows refer to
                name TEXT NOT NULL UNIQUE        -- the reverse-DNS app id
            );
            INSERT INTO apps(name) SELECT app FROM schedules UNION SELECT app FROM finished
                UNION SELECT app FROM applied UNION SELECT app FROM pending_counts ORDER BY 1;
            CREATE TABLE schedules_v6(
                key INTEGER PRIMARY KEY,         -- the rowid: the timer wheel's key (kept from v5)
                app INTEGER NOT NULL,            -- apps.n
                id TEXT NOT NULL,
                next_due INTEGER NOT NULL,       -- microseconds since the epoch
                kind INTEGER NOT NULL,           -- StoredTriggerKind
                digest BLOB NOT NULL,            -- SHA-256 of the push's fingerprint (32 bytes)
                title TEXT NOT NULL,
                body TEXT,
                data TEXT,
                zone TEXT,                       -- pinned zone; NULL = the device zone
                until_zone TEXT,
                detail TEXT                      -- StoreRowCoding.detail: only what differs from the defaults
            );
            """)
        try copySchedules(db)
        try db.execute("""
            DROP TABLE schedules;
            ALTER TABLE schedules_v6 RENAME TO schedules;
            CREATE UNIQUE INDEX schedules_by_id ON schedules(app, id);
            CREATE INDEX schedules_by_app_next ON schedules(app, next_due, key);
            CREATE INDEX schedules_by_zone ON schedules(zone) WHERE zone IS NOT NULL;
            CREATE INDEX schedules_by_until_zone ON schedules(until_zone) WHERE until_zone IS NOT NULL;

            CREATE TABLE schedule_events_v6(
                app INTEGER NOT NULL,            -- the schedule's app (apps.n)
                event TEXT NOT NULL,
                key INTEGER NOT NULL,
                PRIMARY KEY(app, event, key)
            ) WITHOUT ROWID;
            INSERT INTO schedule_events_v6 SELECT s.app, e.event, e.key FROM schedule_events AS e
                JOIN schedules AS s ON s.key = e.key;
            DROP TABLE schedule_events;
            ALTER TABLE schedule_events_v6 RENAME TO schedule_events;

            CREATE TABLE finished_v6(
                app INTEGER NOT NULL,
                id TEXT NOT NULL,
                digest BLOB NOT NULL,
                outcome TEXT NOT NULL,
                due INTEGER,
                finished_at INTEGER NOT NULL,
                keep_until INTEGER NOT NULL,
                title TEXT,
                message_id TEXT,
                data TEXT,
                PRIMARY KEY(app, id)
            ) WITHOUT ROWID;
            CREATE TABLE applied_v6(
                app INTEGER NOT NULL,
                id TEXT NOT NULL,
                digest BLOB NOT NULL,            -- a digest no longer current for (app, id)
                applied_at INTEGER NOT NULL,
                PRIMARY KEY(app, id, digest)
            ) WITHOUT ROWID;
            """)
        try copyDigests(db)
        try db.execute("""
            DROP TABLE finished;
            ALTER TABLE finished_v6 RENAME TO finished;
            CREATE INDEX finished_by_expiry ON finished(keep_until);
            DROP TABLE applied;
            ALTER TABLE applied_v6 RENAME TO applied;
            DELETE FROM applied WHERE EXISTS(SELECT 1 FROM schedules AS s
                    WHERE s.app = applied.app AND s.id = applied.id AND s.digest = applied.digest)
                OR EXISTS(SELECT 1 FROM finished AS f
                    WHERE f.app = applied.app AND f.id = applied.id AND f.digest = applied.digest);
            CREATE INDEX applied_by_age ON applied(applied_at);

            DROP TABLE pending_counts;
            CREATE TABLE pending_counts(
                app INTEGER PRIMARY KEY,         -- apps.n
                n INTEGER NOT NULL,              -- pending schedules of the app
                bytes INTEGER NOT NULL           -- their StoreRowCoding.storedBytes, summed
            );
            INSERT INTO pending_counts(app, n, bytes)
                SELECT app, count(*), sum(\(StoreRowCoding.storedBytesSQL(""))) FROM schedules GROUP BY app;
            CREATE TRIGGER pending_counts_insert AFTER INSERT ON schedules BEGIN
                INSERT INTO pending_counts(app, n, bytes) VALUES (NEW.app, 1, \(StoreRowCoding.storedBytesSQL("NEW.")))
                    ON CONFLICT(app) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER pending_counts_delete AFTER DELETE ON schedules BEGIN
                UPDATE pending_counts SET n = n - 1, bytes = bytes - \(StoreRowCoding.storedBytesSQL("OLD."))
                    WHERE app = OLD.app;
                INSERT INTO applied(app, id, digest, applied_at) VALUES (OLD.app, OLD.id, OLD.digest, OLD.next_due)
                    ON CONFLICT DO NOTHING;
            END;
            CREATE TRIGGER pending_counts_update AFTER UPDATE OF app, id, title, body, data, zone, until_zone, detail
                ON schedules BEGIN
                UPDATE pending_counts SET n = n - 1, bytes = bytes - \(StoreRowCoding.storedBytesSQL("OLD."))
                    WHERE app = OLD.app;
                INSERT INTO pending_counts(app, n, bytes) VALUES (NEW.app, 1, \(StoreRowCoding.storedBytesSQL("NEW.")))
                    ON CONFLICT(app) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER finished_forget AFTER DELETE ON finished BEGIN
                INSERT INTO applied(app, id, digest, applied_at) VALUES (OLD.app, OLD.id, OLD.digest, OLD.finished_at)
                    ON CONFLICT DO NOTHING;
            END;
            CREATE TRIGGER finished_replace AFTER UPDATE OF digest ON finished WHEN OLD.digest IS NOT NEW.digest BEGIN
                INSERT INTO applied(app, id, digest, applied_at) VALUES (OLD.app, OLD.id, OLD.digest, OLD.finished_at)
                    ON CONFLICT DO NOTHING;
            END;

            CREATE TABLE history_counts(
                app TEXT PRIMARY KEY,            -- history.app
                n INTEGER NOT NULL               -- its records
            ) WITHOUT ROWID;
            INSERT INTO history_counts(app, n) SELECT app, count(*) FROM history GROUP BY app;
            CREATE TRIGGER history_counts_insert AFTER INSERT ON history BEGIN
                INSERT INTO history_counts(app, n) VALUES (NEW.app, 1) ON CONFLICT(app) DO UPDATE SET n = n + 1;
            END;
            CREATE TRIGGER history_counts_delete AFTER DELETE ON history BEGIN
                UPDATE history_counts SET n = n - 1 WHERE app = OLD.app;
            END;
            """)
    }

    /// v5 rows → v6 rows, keys kept (read with the v5 columns, written by `StoreRowCoding`).
    private static func copySchedules(_ db: SQLiteConnection) throws(SQLiteError) {
        let rows = try db.statement("""
            SELECT key, id, kind, spec, at_instant, at_offset, wall, zone, until_instant, until_wall, until_zone,
                next_due, last_due, title, body, data, cancel_on, grace, urgency, icon, category, actions, message_id,
                fingerprint, stored_at, (SELECT n FROM apps WHERE name = schedules.app), extras
            FROM schedules ORDER BY key
            """)
        let insert = try db.statement("""
            INSERT INTO schedules_v6(app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail, key)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """)
        while try rows.step() {
            var s = StoredSchedule(
                key: rows.int64(0), app: "", id: rows.string(1),
                kind: StoredTriggerKind(rawValue: rows.int64(2)) ?? .fixedAt, spec: rows.optionalString(3),
                atInstant: rows.optionalInt64(4).map(Instant.init(microseconds:)),
                atOffset: rows.optionalInt64(5).map { Int($0) }, wall: rows.optionalInt64(6).map(StoreCoding.decodeWall),
                zone: rows.optionalString(7), untilInstant: rows.optionalInt64(8).map(Instant.init(microseconds:)),
                untilWall: rows.optionalInt64(9).map(StoreCoding.decodeWall), untilZone: rows.optionalString(10),
                next: Instant(microseconds: rows.int64(11)), lastDue: rows.optionalInt64(12).map(Instant.init(microseconds:)),
                title: rows.string(13), body: rows.optionalString(14), dataJSON: rows.optionalString(15),
                cancelOn: rows.optionalString(16).map(StoreCoding.decodeList) ?? [], graceSeconds: rows.optionalInt64(17),
                urgency: StoreCoding.decodeUrgency(rows.int64(18)), icon: rows.optionalString(19),
                category: rows.optionalString(20), actions: StoreCoding.decodeActions(rows.optionalString(21)),
                messageId: rows.optionalString(22), fingerprint: rows.string(23),
                storedAt: Instant(microseconds: rows.int64(24)))
            s.extras = StoreCoding.decodeExtras(rows.optionalString(26))
            StoreRowCoding.bind(s, app: rows.int64(25), detail: StoreRowCoding.detail(of: s), to: insert)
            insert.bind(12, s.key)
            try insert.run()
        }
        rows.reset()
    }

    /// `finished` and `applied` with app numbers and digest blobs.
    private static func copyDigests(_ db: SQLiteConnection) throws(SQLiteError) {
        let finished = try db.statement("""
            SELECT (SELECT n FROM apps WHERE name = f.app), id, fingerprint, outcome, due, finished_at, keep_until,
                title, message_id, data FROM finished AS f
            """)
        let putFinished = try db.statement("""
            INSERT INTO finished_v6(app, id, digest, outcome, due, finished_at, keep_until, title, message_id, data)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """)
        while try finished.step() {
            putFinished.bind(1, finished.int64(0))
            putFinished.bind(2, finished.string(1))
            StoreRowCoding.bindDigest(finished.string(2), 3, putFinished)
            putFinished.bind(4, finished.string(3))
            putFinished.bind(5, finished.optionalInt64(4))
            putFinished.bind(6, finished.int64(5))
            putFinished.bind(7, finished.int64(6))
            putFinished.bind(8, finished.optionalString(7))
            putFinished.bind(9, finished.optionalString(8))
            putFinished.bind(10, finished.optionalString(9))
            try putFinished.run()
        }
        finished.reset()
        let applied = try db.statement("SELECT (SELECT n FROM apps WHERE name = a.app), id, digest, applied_at FROM applied AS a")
        let putApplied = try db.statement("""
            INSERT OR IGNORE INTO applied_v6(app, id, digest, applied_at) VALUES(?1, ?2, ?3, ?4)
            """)
        while try applied.step() {
            putApplied.bind(1, applied.int64(0))
            putApplied.bind(2, applied.string(1))
            StoreRowCoding.bindDigest(applied.string(2), 3, putApplied)
            putApplied.bind(4, applied.int64(3))
            try putApplied.run()
        }
        applied.reset()
    }
}
