/// Schema version 9: the byte quota counts every row an app leaves behind (issue 31 item 2, CONTRACT §8
/// "Quota"; docs/store.md "Version 9").
///
/// - `pending_counts.kept`: the bytes of the app's finished records, applied digests, tombstones and
///   cancellation jobs (`StoreKeptBytes`), kept by triggers on those tables in the writing transaction.
///   Apps with nothing pending get a row too (`n` 0).
/// - `history_counts.bytes`: the bytes of the app's history records, kept by the history triggers beside
///   the count, and of its history data: `payloads.app` (new rows) makes data shared within an app only,
///   counted once per distinct data by triggers on `payloads` (rows from before have no app and count
///   nowhere; a record appended later with the same data gets a row of its app).
/// - `cancel_jobs_by_app(app, n)`: an app's jobs without reading another app's (issue 31 item 3).
/// The totals start from the rows already there.
extension StoreMigration {
    static let v9 = StoreMigration(version: 9, summary: "byte quota over every kept row, cancellation jobs by app") { (db) throws(SQLiteError) in
        let K = StoreKeptBytes.self
        func upsert(_ app: String, _ bytes: String) -> String {
            // apps.n of a text app id; an app without a number (never: the store interns first) counts nowhere.
            """
            INSERT INTO pending_counts(app, n, bytes, kept) SELECT \(app), 0, 0, \(bytes) WHERE \(app) IS NOT NULL
                ON CONFLICT(app) DO UPDATE SET kept = kept + excluded.kept;
            """
        }
        try db.execute("""
            ALTER TABLE pending_counts ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE history_counts ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
            INSERT OR IGNORE INTO apps(name) SELECT app FROM tombstones UNION SELECT app FROM history;
            INSERT INTO pending_counts(app, n, bytes, kept)
                SELECT app, 0, 0, sum(b) FROM (
                    SELECT app, \(K.finishedSQL("")) AS b FROM finished
                    UNION ALL SELECT app, \(K.appliedSQL("")) FROM applied
                    UNION ALL SELECT (SELECT n FROM apps WHERE name = t.app), \(K.tombstoneSQL("t.")) FROM tombstones AS t
                    UNION ALL SELECT app, \(K.jobSQL("")) FROM cancel_jobs)
                WHERE app IS NOT NULL GROUP BY app
                ON CONFLICT(app) DO UPDATE SET kept = excluded.kept;
            UPDATE history_counts SET bytes = (SELECT coalesce(sum(\(K.historySQL("h."))), 0) FROM history AS h
                WHERE h.app = history_counts.app);
            ALTER TABLE payloads ADD COLUMN app TEXT;
            CREATE TRIGGER kept_payload_insert AFTER INSERT ON payloads WHEN NEW.app IS NOT NULL BEGIN
                INSERT INTO history_counts(app, n, bytes) VALUES (NEW.app, 0, \(K.payloadSQL("NEW.")))
                    ON CONFLICT(app) DO UPDATE SET bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER kept_payload_delete AFTER DELETE ON payloads WHEN OLD.app IS NOT NULL BEGIN
                UPDATE history_counts SET bytes = bytes - \(K.payloadSQL("OLD.")) WHERE app = OLD.app;
            END;

            CREATE TRIGGER kept_finished_insert AFTER INSERT ON finished BEGIN
                \(upsert("NEW.app", K.finishedSQL("NEW.")))
            END;
            CREATE TRIGGER kept_finished_update AFTER UPDATE ON finished BEGIN
                UPDATE pending_counts SET kept = kept - \(K.finishedSQL("OLD.")) WHERE app = OLD.app;
                \(upsert("NEW.app", K.finishedSQL("NEW.")))
            END;
            CREATE TRIGGER kept_finished_delete AFTER DELETE ON finished BEGIN
                UPDATE pending_counts SET kept = kept - \(K.finishedSQL("OLD.")) WHERE app = OLD.app;
            END;
            CREATE TRIGGER kept_applied_insert AFTER INSERT ON applied BEGIN
                \(upsert("NEW.app", K.appliedSQL("NEW.")))
            END;
            CREATE TRIGGER kept_applied_delete AFTER DELETE ON applied BEGIN
                UPDATE pending_counts SET kept = kept - \(K.appliedSQL("OLD.")) WHERE app = OLD.app;
            END;
            CREATE TRIGGER kept_tombstone_insert AFTER INSERT ON tombstones BEGIN
                \(upsert("(SELECT n FROM apps WHERE name = NEW.app)", K.tombstoneSQL("NEW.")))
            END;
            CREATE TRIGGER kept_tombstone_delete AFTER DELETE ON tombstones BEGIN
                UPDATE pending_counts SET kept = kept - \(K.tombstoneSQL("OLD."))
                    WHERE app = (SELECT n FROM apps WHERE name = OLD.app);
            END;
            CREATE TRIGGER kept_job_insert AFTER INSERT ON cancel_jobs BEGIN
                \(upsert("NEW.app", K.jobSQL("NEW.")))
            END;
            CREATE TRIGGER kept_job_delete AFTER DELETE ON cancel_jobs BEGIN
                UPDATE pending_counts SET kept = kept - \(K.jobSQL("OLD.")) WHERE app = OLD.app;
            END;

            CREATE INDEX cancel_jobs_by_app ON cancel_jobs(app, n);

            DROP TRIGGER history_counts_insert;
            DROP TRIGGER history_counts_delete;
            CREATE TRIGGER history_counts_insert AFTER INSERT ON history BEGIN
                INSERT INTO history_counts(app, n, bytes) VALUES (NEW.app, 1, \(K.historySQL("NEW.")))
                    ON CONFLICT(app) DO UPDATE SET n = n + 1, bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER history_counts_delete AFTER DELETE ON history BEGIN
                UPDATE history_counts SET n = n - 1, bytes = bytes - \(K.historySQL("OLD.")) WHERE app = OLD.app;
            END;
            """)
    }
}
