/// Schema version 7: cancellation jobs (issue 20 item 3; docs/daemon-parts.md "Sliced cancellation").
///
/// A Track or CancelRun over more schedules than one slice records a job in the answering transaction:
/// what it covers (`app`, `kind` 0 = event / 1 = run, `name`, only keys up to `bound`: the schedules stored
/// before the call), the history it writes (`reason`, `at`) and how many covered schedules are still
/// pending (`remaining`, what PendingCount subtracts). The daemon cancels the rest in slices; the row goes
/// with the last slice. A handful of rows at most: read whole, never scanned per schedule.
extension StoreMigration {
    static let v7 = StoreMigration(version: 7, summary: "cancellation jobs") { (db) throws(SQLiteError) in
        try db.execute("""
            CREATE TABLE cancel_jobs(
                n INTEGER PRIMARY KEY,           -- creation order: older jobs own what they cover
                app INTEGER NOT NULL,            -- apps.n
                kind INTEGER NOT NULL,           -- 0: schedules whose cancelOn holds `name`; 1: run `name`
                name TEXT NOT NULL,
                reason TEXT NOT NULL,            -- history reason (event:NAME, run)
                at INTEGER NOT NULL,             -- the call's instant (µs): history `at`
                bound INTEGER NOT NULL,          -- covers schedules with key <= bound (stored before the call)
                remaining INTEGER NOT NULL       -- covered schedules still pending
            );
            """)
    }
}
