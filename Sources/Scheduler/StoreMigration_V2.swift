import SchedCalendar

/// Schema version 2: honest history, bounded growth, idempotency digests, zone identities.
///
/// - `history` is rebuilt: `data` moves into `payloads` (one row per distinct data, shared by every record
///   of a repeating schedule — a per-minute schedule with 16 KiB of data no longer writes 16 KiB a minute),
///   `confirmed` (0 = a firing committed but not yet known to be handed to the notifier), and indexes for
///   payload collection and unconfirmed firings (retention deletes in append order: no index on `at`).
/// - `applied`: the digest of every push applied per id (CONTRACT §1 "whatever came after it"); the
///   `fingerprint` columns of `schedules` and `finished` now hold digests too (converted here).
/// - `zones`: the content hash of each zone file in use, to notice tzdata updates (also across restarts).
/// - `failed_deliveries.expires`: the end of its grace, so deliveries past it are dropped by an index range
///   (rows from v1 take the v1 default grace of 3600 s when they had none).
extension StoreMigration {
    static let v2 = StoreMigration(version: 2, summary: "payloads, confirmed history, applied digests, zones") {
        (db) throws(SQLiteError) in
        try db.execute("""
            CREATE TABLE payloads(
                ref INTEGER PRIMARY KEY,
                hash INTEGER NOT NULL,           -- StoreCoding.payloadHash(data)
                data TEXT NOT NULL
            );
            CREATE INDEX payloads_by_hash ON payloads(hash);
            CREATE TABLE history_v2(
                seq INTEGER PRIMARY KEY,         -- append order
                id TEXT NOT NULL,
                event TEXT NOT NULL,
                at INTEGER NOT NULL,
                due INTEGER,
                reason TEXT,
                late REAL,
                title TEXT,
                message_id TEXT,
                payload INTEGER,                 -- payloads.ref of the record's data; NULL = no data
                confirmed INTEGER NOT NULL DEFAULT 1  -- 0: a `fired` whose hand-over is not yet confirmed
            );
            """)
        let distinct = try db.statement("SELECT DISTINCT data FROM history WHERE data IS NOT NULL")
        let insert = try db.statement("INSERT INTO payloads(hash, data) VALUES(?1, ?2)")
        while try distinct.step() {
            let data = distinct.string(0)
            insert.bind(1, StoreCoding.payloadHash(data))
            insert.bind(2, data)
            try insert.run()
        }
        distinct.reset()
        // The comparison below looks each record's data up by an index (a temporary one, dropped after):
        // without it every record scanned every payload, O(history × payloads). Same rows either way.
        try db.execute("""
            CREATE INDEX payloads_by_data_v2 ON payloads(data);
            INSERT INTO history_v2(seq, id, event, at, due, reason, late, title, message_id, payload, confirmed)
                SELECT seq, id, event, at, due, reason, late, title, message_id,
                       (SELECT min(ref) FROM payloads AS p WHERE p.data = h.data), 1
                FROM history AS h;
            DROP INDEX payloads_by_data_v2;
            DROP TABLE history;
            ALTER TABLE history_v2 RENAME TO history;
            CREATE INDEX history_by_payload ON history(payload) WHERE payload IS NOT NULL;
            CREATE INDEX history_unconfirmed ON history(seq) WHERE confirmed = 0;
            CREATE TABLE applied(
                id TEXT NOT NULL,
                digest TEXT NOT NULL,            -- StoreCoding.digest(ofFingerprint:)
                applied_at INTEGER NOT NULL,
                PRIMARY KEY(id, digest)
            ) WITHOUT ROWID;
            CREATE INDEX applied_by_age ON applied(applied_at);
            CREATE TABLE zones(
                name TEXT PRIMARY KEY,           -- a zone in use (the device zone or a pinned one)
                content_hash TEXT NOT NULL       -- SHA-256 of its TZif file when last resolved
            ) WITHOUT ROWID;
            ALTER TABLE failed_deliveries ADD COLUMN expires INTEGER NOT NULL DEFAULT 0;
            UPDATE failed_deliveries SET expires =
                CASE WHEN coalesce(grace, 3600) > 4611686018427 THEN 9223372036854775807
                     ELSE due + coalesce(grace, 3600) * 1000000 END;
            CREATE INDEX failed_deliveries_by_expiry ON failed_deliveries(expires);
            """)
        // Fingerprints become digests, and every push still known counts as applied.
        for (table, key, time) in [("schedules", "key", "stored_at"), ("finished", "id", "finished_at")] {
            let rows = try db.statement("SELECT \(key), fingerprint, id, \(time) FROM \(table)")
            var converted: [(key: String, digest: String, id: String, time: Int64)] = []
            while try rows.step() {
                converted.append((rows.string(0), StoreCoding.digest(ofFingerprint: rows.string(1)), rows.string(2),
                                  rows.int64(3)))
            }
            rows.reset()
            let update = try db.statement("UPDATE \(table) SET fingerprint = ?2 WHERE \(key) = ?1")
            let applied = try db.statement("INSERT OR IGNORE INTO applied(id, digest, applied_at) VALUES(?1, ?2, ?3)")
            for row in converted {
                update.bind(1, row.key)
                update.bind(2, row.digest)
                try update.run()
                applied.bind(1, row.id)
                applied.bind(2, row.digest)
                applied.bind(3, row.time)
                try applied.run()
            }
        }
    }
}
