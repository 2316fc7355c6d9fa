/// Schema version 8: `pending_counts` is kept by the store's own statement when a schedule is inserted,
/// not by the `pending_counts_insert` trigger (issue 19 item 2; docs/store.md "Version 8").
///
/// Why: a trigger makes SQLite open a statement journal for every INSERT into `schedules` inside a
/// transaction (an INSERT with a trigger may abort after changing several rows), and that journal copies a
/// pre-image of every page the statement touches — 4.4 pages of 8 KiB per push, ~11% of the instructions
/// of a bulk load's commit (callgrind, `schedd-bench bulkpath`: `subjournalPageIfRequired`, `memjrnlWrite`,
/// the trigger's frame). `SQLiteScheduleStore.insert` (now `ScheduleTable.insert`) runs the same upsert right after its INSERT
/// (one row each: no statement journal), with the stored bytes computed by `StoreRowCoding.storedBytes`,
/// the Swift twin of the trigger's `storedBytesSQL` (a test holds them equal). The delete and update
/// triggers stay: they run where a statement journal is opened anyway or rarely.
extension StoreMigration {
    static let v8 = StoreMigration(version: 8, summary: "pending counts kept by the insert, not a trigger") {
        (db) throws(SQLiteError) in
        try db.execute("DROP TRIGGER IF EXISTS pending_counts_insert")
    }
}
