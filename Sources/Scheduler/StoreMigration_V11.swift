/// Schema version 11: the UnifiedPush replay window (CONTRACT §8 "Fair service": a message delivered twice
/// changes nothing the second time; docs/store.md "Version 11", docs/receiving-pushes.md "Replays").
///
/// - `push_replays(app, digest, seq, at)`: per app (`apps.n`; one registration per app), the SHA-256 of each
///   delivered message body (the encrypted bytes, as the distributor handed them over) that decrypted with
///   the registration's keys, numbered `seq` 1, 2, … within the app. `PushReplayTable.windowSize` rows per app at
///   most: the store removes the oldest when it records a new one. `WITHOUT ROWID`, keyed by the digest
///   (the lookup of every message); `push_replays_by_seq` finds the oldest.
/// - The rows count in the app's byte quota (`pending_counts.kept`, `StoreKeptBytes.replay`) through
///   triggers, as every other kept row (schema 9).
/// - Removing a registration removes its window (trigger): its keys are gone, so no message of it could
///   decrypt again.
extension StoreMigration {
    static let v11 = StoreMigration(version: 11, summary: "the UnifiedPush replay window") { (db) throws(SQLiteError) in
        let K = StoreKeptBytes.self
        try db.execute("""
            CREATE TABLE push_replays(
                app INTEGER NOT NULL,
                digest BLOB NOT NULL,
                seq INTEGER NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY(app, digest)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX push_replays_by_seq ON push_replays(app, seq);
            CREATE TRIGGER kept_replay_insert AFTER INSERT ON push_replays BEGIN
                INSERT INTO pending_counts(app, n, bytes, kept) VALUES (NEW.app, 0, 0, \(K.replaySQL("NEW.")))
                    ON CONFLICT(app) DO UPDATE SET kept = kept + excluded.kept;
            END;
            CREATE TRIGGER kept_replay_delete AFTER DELETE ON push_replays BEGIN
                UPDATE pending_counts SET kept = kept - \(K.replaySQL("OLD.")) WHERE app = OLD.app;
            END;
            CREATE TRIGGER push_replays_unregistered AFTER DELETE ON push_registrations BEGIN
                DELETE FROM push_replays WHERE app = (SELECT n FROM apps WHERE name = OLD.app);
            END;
            """)
    }
}
