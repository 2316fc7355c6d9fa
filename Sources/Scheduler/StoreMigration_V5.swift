/// Schema version 5: the number of pending schedules per app, kept by triggers.
///
/// The quota check (CONTRACT §8) runs on every push that adds a schedule. Counting an app's rows
/// (`SELECT count(*) … WHERE app = ?`) costs O(pending of that app), which made a bulk load of n
/// pushes O(n²) (measured: NDJSON ingest fell from 37.7k to 4.8k pushes/s at 100k pending).
/// `pending_counts` holds one row per app with its count, maintained by triggers on `schedules` inside
/// the same transaction (and savepoint) as the change, so it can never drift from the rows it counts and
/// a rolled-back push rolls its count back too. Reading it is one primary-key lookup: O(log apps).
///
/// The store changes `schedules` only by plain INSERT, DELETE and UPDATE (never `INSERT OR REPLACE`,
/// whose implicit deletes would not fire the delete trigger without `recursive_triggers`).
extension StoreMigration {
    static let v5 = StoreMigration(version: 5, summary: "pending schedules counted per app by triggers") {
        (db) throws(SQLiteError) in
        try db.execute("""
            CREATE TABLE pending_counts(
                app TEXT PRIMARY KEY,            -- an app with pending schedules (or had some)
                n INTEGER NOT NULL               -- how many rows of schedules have this app
            ) WITHOUT ROWID;
            INSERT INTO pending_counts(app, n) SELECT app, count(*) FROM schedules GROUP BY app;
            CREATE TRIGGER pending_counts_insert AFTER INSERT ON schedules BEGIN
                INSERT INTO pending_counts(app, n) VALUES (NEW.app, 1) ON CONFLICT(app) DO UPDATE SET n = n + 1;
            END;
            CREATE TRIGGER pending_counts_delete AFTER DELETE ON schedules BEGIN
                UPDATE pending_counts SET n = n - 1 WHERE app = OLD.app;
            END;
            CREATE TRIGGER pending_counts_move AFTER UPDATE OF app ON schedules WHEN OLD.app IS NOT NEW.app BEGIN
                UPDATE pending_counts SET n = n - 1 WHERE app = OLD.app;
                INSERT INTO pending_counts(app, n) VALUES (NEW.app, 1) ON CONFLICT(app) DO UPDATE SET n = n + 1;
            END;
            """)
    }
}
