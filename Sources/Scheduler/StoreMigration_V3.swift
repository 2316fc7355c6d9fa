/// Schema version 3: UnifiedPush registrations (docs/receiving-pushes.md), one row per app.
///
/// `token` is the connector token schedd sent to the distributor (unique, how a `Message` finds its
/// app); the keys are base64url text; `rejected` and `last_rejected_*` record pushes that did not
/// decrypt or were not valid pushes (the latest one; the row stays bounded).
extension StoreMigration {
    static let v3 = StoreMigration(version: 3, summary: "UnifiedPush registrations") { (db) throws(SQLiteError) in
        try db.execute("""
            CREATE TABLE push_registrations(
                app TEXT PRIMARY KEY,
                token TEXT NOT NULL UNIQUE,
                description TEXT NOT NULL DEFAULT '',
                distributor TEXT,
                endpoint TEXT,
                private_key TEXT NOT NULL,
                public_key TEXT NOT NULL,
                auth_secret TEXT NOT NULL,
                created INTEGER NOT NULL,
                updated INTEGER NOT NULL,
                rejected INTEGER NOT NULL DEFAULT 0,
                last_rejected_at INTEGER,
                last_rejected_id TEXT,
                last_rejected_reason TEXT
            );
            """)
    }
}
