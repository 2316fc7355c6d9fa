/// Schema version 10: sleep and alarms (CONTRACT §11; docs/store.md "Version 10").
///
/// - `history.folded`: 1 on a `fired` record shown inside an app's summary notification instead of on its
///   own (`Engine` folding, Scheduler/Folding.swift); NULL otherwise. `ALTER TABLE … ADD COLUMN` with no
///   default: no row is rewritten.
/// - `schedules_wake`: a partial index on `next_due` of the schedules whose `detail` holds `"wake":true`
///   (the extras' JSON, `StoreCoding.encode(extras:)`, inside `StoreRowCoding.detail`), so the earliest
///   wake schedule is an index seek (`ScheduleTable.earliestWake`), whatever the number of other
///   pending schedules.
extension StoreMigration {
    static let v10 = StoreMigration(version: 10, summary: "folded firings, the wake index") { (db) throws(SQLiteError) in
        try db.execute("""
            ALTER TABLE history ADD COLUMN folded INTEGER;
            CREATE INDEX schedules_wake ON schedules(next_due) WHERE detail LIKE '%"wake":true%';
            """)
    }
}
