import SchedCalendar

/// Table `schedules` (with `schedule_events`, the cancelOn index): the pending schedules, each row bound and
/// read by `StoreRowCoding` (its one column list). Its insert, delete and next-due update are the only
/// statements that change `schedules` rows, and each keeps `pending_counts.n`/`.bytes` through `counts`; a
/// schedule stored while a cancellation job exists gets a key above every job's bound (`cancelJobs`).
public final class ScheduleTable: StoreTable {
    let connection: StoreConnection
    let counts: PendingCounts
    let cancelJobs: CancelJobTable

    init(_ connection: StoreConnection, counts: PendingCounts, cancelJobs: CancelJobTable) {
        self.connection = connection
        self.counts = counts
        self.cancelJobs = cancelJobs
    }

    /// Stores `s`; returns its key. Also its cancelOn events and its app's `pending_counts`. O(log n).
    public func insert(_ s: StoredSchedule) throws(StoreError) -> Int64 {
        try insert(s, encoded: RowEncoding(s))
    }

    /// Stores `s` with its `encoded` row (a push weighs the row for the quota first, then stores it: one
    /// encoding for both). Precondition: `encoded` is `RowEncoding(s)`. O(log n).
    public func insert(_ s: StoredSchedule, encoded: RowEncoding) throws(StoreError) -> Int64 {
        return try sql { () throws(SQLiteError) -> Int64 in
            let app = try internApp(s.app)
            // While a cancellation job exists, above its bound: a schedule stored after the call is not covered.
            let explicitKey = try cancelJobs.keyAboveCancelJobs()
            let st = try db.statement(explicitKey == nil ? """
                INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """ : """
                INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail, key) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                """)
            let detail = encoded.detail
            StoreRowCoding.bind(s, app: app, detail: detail, to: st)
            if let explicitKey { st.bind(12, explicitKey) }
            let mark = db.totalChanges
            try st.run()
            var rows = Int64(db.changes)
            let key = db.lastInsertRowid
            // What the `pending_counts_insert` trigger did before schema 8 (StoreMigration_V8: a trigger made
            // the INSERT above open a statement journal). Same transaction, so the totals stay exact (held
            // until the transaction's end inside one: `PendingCounts`).
            try counts.added(app: app, bytes: encoded.storedBytes)
            if !s.cancelOn.isEmpty {
                let event = try db.statement("INSERT OR IGNORE INTO schedule_events(app, event, key) VALUES(?1, ?2, ?3)")
                for name in s.cancelOn {
                    event.bind(1, app)
                    event.bind(2, name)
                    event.bind(3, key)
                    try event.run()
                    rows += Int64(db.changes)
                }
            }
            counts.ownRowsWritten(rows, since: mark)
            return key
        }
    }

    /// What `schedule` would add to its app's `PendingCounts.pendingBytes`: the UTF-8 bytes of its id and
    /// texts plus a fixed overhead per row. O(size of the schedule).
    public func storedBytes(of schedule: StoredSchedule) -> Int {
        RowEncoding(schedule).storedBytes
    }

    public func schedule(key: Int64) throws(StoreError) -> StoredSchedule? {
        try selectSchedules("WHERE key = ?1") { $0.bind(1, key) }.first
    }

    public func schedule(app: String, id: String) throws(StoreError) -> StoredSchedule? {
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        return try selectSchedules("WHERE app = ?1 AND id = ?2") { $0.bind(1, n); $0.bind(2, id) }.first
    }

    /// The key, next due and fingerprint of the pending schedule with `id` (cheaper than `schedule(app:id:)`).
    public func pendingSummary(app: String, id: String) throws(StoreError) -> (key: Int64, next: Instant, fingerprint: String)? {
        try sql { () throws(SQLiteError) -> (key: Int64, next: Instant, fingerprint: String)? in
            let st = try db.statement("SELECT key, next_due, digest FROM schedules WHERE app = ?2 AND id = ?1")
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, try lookupApp(app))
            guard try st.step() else { return nil }
            return (st.int64(0), Instant(microseconds: st.int64(1)), StoreRowCoding.readDigest(st, 2))
        }
    }

    /// Tombstones of `id` and of `run`, the pending schedule and the finished record of `id`, and whether
    /// `digest` is in `applied`, at once.
    /// One statement for everything a push reads before it writes: two tombstone seeks, the pending and
    /// finished rows of `id` (unique keys), and the `applied` seek for `digest`.
    public func pushLookup(app: String, id: String, run: String, digest: String) throws(StoreError) -> PushLookup {
        try sql { () throws(SQLiteError) -> PushLookup in
            let st = try db.statement("""
                SELECT EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 0 AND name = ?1),
                       EXISTS(SELECT 1 FROM tombstones WHERE app = ?3 AND kind = 1 AND name = ?2),
                       s.key, s.next_due, s.digest, f.digest,
                       EXISTS(SELECT 1 FROM applied WHERE app = ?4 AND id = ?1 AND digest = ?5)
                FROM (SELECT ?1 AS id, ?4 AS app) AS q
                LEFT JOIN schedules AS s ON s.app = q.app AND s.id = q.id
                LEFT JOIN finished AS f ON f.app = q.app AND f.id = q.id
                """)
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, run)
            st.bind(3, app)
            st.bind(4, try lookupApp(app))
            StoreRowCoding.bindDigest(digest, 5, st)
            guard try st.step() else { return PushLookup(idTombstoned: false, runTombstoned: false) }
            return PushLookup(idTombstoned: st.int64(0) != 0, runTombstoned: st.int64(1) != 0,
                              pendingKey: st.optionalInt64(2), pendingNext: st.optionalInt64(3).map(Instant.init(microseconds:)),
                              pendingFingerprint: st.isNull(4) ? nil : StoreRowCoding.readDigest(st, 4),
                              finishedFingerprint: st.isNull(5) ? nil : StoreRowCoding.readDigest(st, 5),
                              digestInApplied: st.int64(6) != 0)
        }
    }

    /// Deletes the row of `schedule` and its cancelOn events, and takes it off its app's `pending_counts`
    /// (`PendingCounts.removed`, with the bytes the DELETE returns from the row itself); the trigger
    /// `schedules_forget` moves its digest to `applied`. O(log n) per event.
    public func delete(_ schedule: StoredSchedule) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement(Self.deleteReturningBytes)
            st.bind(1, schedule.key)
            let deleted = try st.step() ? (app: st.int64(0), bytes: st.int64(1)) : nil
            // Stepped to the end: the DELETE (and its trigger) is complete only then.
            while try st.step() {}
            st.reset()
            guard let deleted else { return }
            try counts.removed(app: deleted.app, bytes: deleted.bytes)
            guard !schedule.cancelOn.isEmpty else { return }
            let events = try db.statement("DELETE FROM schedule_events WHERE app = ?1 AND event = ?2 AND key = ?3")
            for name in schedule.cancelOn {
                events.bind(1, deleted.app)
                events.bind(2, name)
                events.bind(3, schedule.key)
                try events.run()
            }
        }
    }

    /// The DELETE of one row by key, returning its app number and the bytes it counted (the formula the
    /// schema-6 trigger used, over the deleted row's own columns). A constant: the statement cache finds it
    /// by address.
    private static let deleteReturningBytes =
        "DELETE FROM schedules WHERE key = ?1 RETURNING app, " + StoreRowCoding.storedBytesSQL("")

    /// Reads the row and writes it back with the new `next_due` and `detail` (the last due lives there);
    /// its app's `pending_counts.bytes` follow the new `detail` (`PendingCounts.detailChanged`). O(log n).
    public func updateNext(key: Int64, next: Instant, lastDue: Instant?) throws(StoreError) {
        guard var s = try schedule(key: key) else { return }
        s.next = next
        s.lastDue = lastDue
        try sql { () throws(SQLiteError) in
            let detail = StoreRowCoding.detail(of: s)
            try counts.detailChanged(key: key, app: try lookupApp(s.app), newBytes: detail?.utf8.count)
            let st = try db.statement("UPDATE schedules SET next_due = ?2, detail = ?3 WHERE key = ?1")
            st.bind(1, key)
            st.bind(2, next.microseconds)
            st.bind(3, detail)
            try st.run()
        }
    }

    /// Streams `(key, next_due)` of every pending schedule from the `(app, next_due, key)` index (a covering
    /// scan: no row is read, nothing is collected). O(n), O(1) memory.
    public func forEachPendingDeadline(_ body: (Int64, Instant) -> Void) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("SELECT key, next_due FROM schedules INDEXED BY schedules_by_app_next")
            defer { st.reset() }
            while try st.step() { body(st.int64(0), Instant(microseconds: st.int64(1))) }
        }
    }

    /// Pending schedules that follow the device zone.
    public func floating() throws(StoreError) -> [StoredSchedule] {
        try selectSchedules("WHERE kind != \(StoredTriggerKind.fixedAt.rawValue) AND zone IS NULL") { _ in }
    }

    /// Pending schedules pinned to zone `name` (by `timeZone`/suffix or their `until`'s zone). O(n).
    public func pinned(zone name: String) throws(StoreError) -> [StoredSchedule] {
        try selectSchedules("WHERE zone = ?1 OR until_zone = ?1 ORDER BY key") { $0.bind(1, name) }
    }

    /// The distinct zones by skip-scans of the partial indexes on `zone` and `until_zone`: one seek per
    /// zone in use, O(zones × log n), never a scan of the schedules.
    public func pinnedZoneNames() throws(StoreError) -> Set<String> {
        try sql { () throws(SQLiteError) -> Set<String> in
            var names = Set<String>()
            for column in ["zone", "until_zone"] {
                let st = try db.statement("""
                    SELECT \(column) FROM schedules WHERE \(column) > ?1 ORDER BY \(column) LIMIT 1
                    """)
                var last = ""
                while true {
                    st.bind(1, last)
                    guard try st.step() else { st.reset(); break }
                    last = st.string(0)
                    st.reset()
                    names.insert(last)
                }
            }
            return names
        }
    }
}

/// A schedule's row as stored, encoded once: its `detail` column (`StoreRowCoding.detail`) and what the row
/// weighs (`storedBytes`): what a push's quota check weighs and its insert writes. O(1) to read.
public struct RowEncoding: Sendable {
    let detail: String?
    /// What the row adds to its app's `PendingCounts.pendingBytes` (`StoreRowCoding.storedBytes`).
    public let storedBytes: Int

    /// Encodes `schedule`'s row. O(size of the schedule).
    public init(_ schedule: StoredSchedule) {
        detail = StoreRowCoding.detail(of: schedule)
        storedBytes = StoreRowCoding.storedBytes(schedule, detail: detail)
    }
}
