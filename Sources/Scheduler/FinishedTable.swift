import SchedCalendar

/// Table `finished`: what became of a schedule that fired its last time or was cancelled, kept until
/// `keepUntil` (CONTRACT §1: its digest keeps answering a repeated push). A replaced or deleted row's digest
/// moves into `applied` (triggers `finished_replace`, `finished_forget`).
public final class FinishedTable: StoreTable {
    let connection: StoreConnection

    init(_ connection: StoreConnection) { self.connection = connection }

    /// The finished record of `id`, if any. One key lookup.
    public func record(app: String, id: String) throws(StoreError) -> FinishedSchedule? {
        try sql { () throws(SQLiteError) -> FinishedSchedule? in
            let st = try db.statement("""
                SELECT digest, outcome, due, finished_at, keep_until, title, message_id, data
                FROM finished WHERE app = ?2 AND id = ?1
                """)
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, try lookupApp(app))
            guard try st.step() else { return nil }
            return FinishedSchedule(
                app: app, id: id, fingerprint: StoreRowCoding.readDigest(st, 0),
                outcome: HistoryRecord.Event(rawValue: st.string(1)) ?? .fired,
                due: st.optionalInt64(2).map(Instant.init(microseconds:)),
                finishedAt: Instant(microseconds: st.int64(3)), keepUntil: Instant(microseconds: st.int64(4)),
                title: st.optionalString(5), messageId: st.optionalString(6), dataJSON: st.optionalString(7))
        }
    }

    /// An upsert (a replaced digest moves into `applied` by the `finished_replace` trigger); the same
    /// digest left in `applied` by the schedule's deletion is removed, so it is kept once.
    public func save(_ r: FinishedSchedule) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let app = try internApp(r.app)
            let st = try db.statement("""
                INSERT INTO finished(id, digest, outcome, due, finished_at, keep_until, title, message_id, data, app) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT(app, id) DO UPDATE SET digest = excluded.digest, outcome = excluded.outcome, \
                due = excluded.due, finished_at = excluded.finished_at, keep_until = excluded.keep_until, \
                title = excluded.title, message_id = excluded.message_id, data = excluded.data
                """)
            st.bind(1, r.id)
            StoreRowCoding.bindDigest(r.fingerprint, 2, st)
            st.bind(3, r.outcome.rawValue)
            st.bind(4, r.due?.microseconds)
            st.bind(5, r.finishedAt.microseconds)
            st.bind(6, r.keepUntil.microseconds)
            st.bind(7, r.title)
            st.bind(8, r.messageId)
            st.bind(9, r.dataJSON)
            st.bind(10, app)
            try st.run()
            let kept = try db.statement("DELETE FROM applied WHERE app = ?1 AND id = ?2 AND digest = ?3")
            kept.bind(1, app)
            kept.bind(2, r.id)
            StoreRowCoding.bindDigest(r.fingerprint, 3, kept)
            try kept.run()
        }
    }

    /// Deletes finished records whose `keepUntil` is before `now`; returns how many.
    @discardableResult
    public func purge(expiredBy now: Instant) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM finished WHERE keep_until < ?1")
            st.bind(1, now.microseconds)
            try st.run()
            return db.changes
        }
    }

    /// Ids of finished schedules of run `run` (the same id range as `ScheduleTable.matching(app:run:)`).
    public func ids(app: String, run: String) throws(StoreError) -> [String] {
        guard !holdsRunSeparator(run) else { return [] }
        return try sql { () throws(SQLiteError) -> [String] in
            let st = try db.statement("SELECT id FROM finished WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3))")
            defer { st.reset() }
            st.bind(4, try lookupApp(app))
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            var ids: [String] = []
            while try st.step() { ids.append(st.string(0)) }
            return ids
        }
    }
}
