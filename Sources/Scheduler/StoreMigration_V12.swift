/// Schema version 12: `pending_counts.n` and `.bytes` are kept in one place, the store's own statements
/// (`PendingCounts`, called by `ScheduleTable`'s insert, delete and next-due update), no longer half by the
/// insert (schema 8) and half by the triggers `pending_counts_delete`/`_update` (schema 6; issue 32 item 2,
/// docs/store.md "Who keeps the counts").
///
/// - `pending_counts_delete` and `pending_counts_update` are dropped. `ScheduleTable.delete` takes the row
///   off its app's counts with the bytes its DELETE returns (`RETURNING` the same `storedBytesSQL` the
///   trigger used, over the deleted row's columns); `ScheduleTable.updateNext` moves the app's bytes by the
///   change of the row's `detail` (the only counted column it writes) in the same statement that reads the
///   old one. Both run in the caller's transaction, so the totals stay exactly as exact as before.
/// - What the delete trigger did besides counting stays a trigger, `schedules_forget`: a deleted schedule's
///   digest moves into `applied` (schema 6), whose `kept_applied_insert` counts it in `pending_counts.kept`.
/// - No row changes: the totals a schema-11 file holds are the ones this build goes on from.
extension StoreMigration {
    static let v12 = StoreMigration(version: 12, summary: "pending counts kept by the store's statements only") {
        (db) throws(SQLiteError) in
        try db.execute("""
            DROP TRIGGER pending_counts_delete;
            DROP TRIGGER pending_counts_update;
            CREATE TRIGGER schedules_forget AFTER DELETE ON schedules BEGIN
                INSERT INTO applied(app, id, digest, applied_at) VALUES (OLD.app, OLD.id, OLD.digest, OLD.next_due)
                    ON CONFLICT DO NOTHING;
            END;
            """)
    }
}
