import SchedCalendar

/// A cancellation under way (schema step 7, docs/daemon-parts.md "Sliced cancellation"): a Track or
/// CancelRun answered with its count and first slice, whose other covered schedules are cancelled in
/// later slices. Covered: `app`'s schedules with key ≤ `bound` (stored before the call) whose cancelOn
/// holds `name` (`.event`) or that belong to run `name` (`.run`), and that no older job covers.
public struct CancelJob: Sendable, Hashable {
    public enum Kind: Int64, Sendable, Hashable { case event = 0, run = 1 }
    public var n: Int64
    public var app: String
    public var kind: Kind
    public var name: String
    /// History reason of the schedules it cancels (`event:NAME`, `run`).
    public var reason: String
    /// The call's instant: history `at` of the schedules it cancels.
    public var at: Instant
    public var bound: Int64
    /// Covered schedules still pending.
    public var remaining: Int
}

/// The store's side of sliced cancellation (table `cancel_jobs`, schema step 7). Every query is bounded by
/// its `limit` or by an index range; none scans the schedules.
public final class CancelJobTable: StoreTable {
    let connection: StoreConnection
    let counts: PendingCounts
    /// The highest bound of the cancellation jobs (nil: none exists).
    private var floor: Int64?
    /// The app numbers that may have a cancellation job (a superset: an app leaves it at the next
    /// `refresh`). Another app's firing, push and listing never look at the jobs (issue 31 item 3).
    private var apps: Set<Int64> = []

    init(_ connection: StoreConnection, counts: PendingCounts) {
        self.connection = connection
        self.counts = counts
    }

    /// False only when no job exists (true may be stale after a rollback: `refresh`).
    public var mayExist: Bool { floor != nil }

    /// Re-reads whether any job exists (outside a transaction, after the commit that removed one).
    public func refresh() throws(StoreError) {
        floor = try sql { () throws(SQLiteError) -> Int64? in
            let st = try db.statement("SELECT max(bound) FROM cancel_jobs")
            defer { st.reset() }
            return try st.step() ? st.optionalInt64(0) : nil
        }
        apps = try sql { () throws(SQLiteError) -> Set<Int64> in
            guard floor != nil else { return [] }
            let st = try db.statement("SELECT DISTINCT app FROM cancel_jobs")
            defer { st.reset() }
            var found: Set<Int64> = []
            while try st.step() { found.insert(st.int64(0)) }
            return found
        }
    }

    /// Whether app number `n` may have a job: a set lookup, no statement.
    func mayHaveCancelJob(_ n: Int64) -> Bool { floor != nil && apps.contains(n) }

    /// The jobs of `app` under way: none unless it may have one (no statement), else a count on
    /// `cancel_jobs_by_app`. The engine bounds it (`Engine.maxCancelJobsPerApp`).
    public func count(app: String) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let n = try lookupApp(app)
            guard mayHaveCancelJob(n) else { return 0 }
            let st = try db.statement("SELECT count(*) FROM cancel_jobs WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, n)
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }

    /// Every job, oldest first. O(jobs).
    public func all() throws(StoreError) -> [CancelJob] {
        guard mayExist else { return [] }
        return try sql { () throws(SQLiteError) -> [CancelJob] in
            let st = try db.statement("SELECT n, app, kind, name, reason, at, bound, remaining FROM cancel_jobs ORDER BY n")
            defer { st.reset() }
            var jobs: [CancelJob] = []
            while try st.step() {
                jobs.append(CancelJob(n: st.int64(0), app: try appName(st.int64(1)), kind: CancelJob.Kind(rawValue: st.int64(2)) ?? .event,
                                      name: st.string(3), reason: st.string(4), at: Instant(microseconds: st.int64(5)),
                                      bound: st.int64(6), remaining: Int(st.int64(7))))
            }
            return jobs
        }
    }

    /// The bound of a job made now: no schedule stored later gets a key at or below it. O(log n).
    public func bound() throws(StoreError) -> Int64 {
        try sql { () throws(SQLiteError) -> Int64 in try maxKeyOrFloor() }
    }

    private func maxKeyOrFloor() throws(SQLiteError) -> Int64 {
        let st = try db.statement("SELECT coalesce(max(key), 0) FROM schedules")
        defer { st.reset() }
        return max(try st.step() ? st.int64(0) : 0, floor ?? 0)
    }

    /// The key the next insert takes while jobs exist (above every job's bound), or nil (SQLite's choice).
    func keyAboveCancelJobs() throws(SQLiteError) -> Int64? {
        guard floor != nil else { return nil }
        return try maxKeyOrFloor() + 1
    }

    /// `NOT EXISTS` an older job covering the row `s` (columns s.app, s.key, s.id); "" when no job exists.
    /// The jobs are found by `cancel_jobs_by_app(app, n)`.
    private var uncoveredSQL: String {
        guard mayExist else { return "" }
        return """
             AND NOT EXISTS(SELECT 1 FROM cancel_jobs AS j WHERE j.app = s.app AND s.key <= j.bound AND (
                (j.kind = 0 AND EXISTS(SELECT 1 FROM schedule_events AS e WHERE e.app = j.app AND e.event = j.name AND e.key = s.key))
                OR (j.kind = 1 AND (s.id = j.name OR (s.id >= j.name || ':' AND s.id < j.name || ';')))))
            """
    }

    /// The filter of a listing of app number `n` while it may have a job: " AND NOT (covered)" on alias `s`;
    /// "" for every other app, whose listing never reads the jobs table.
    func uncoveredFilter(_ n: Int64) -> String { mayHaveCancelJob(n) ? uncoveredSQL : "" }

    /// Rows matching (`kind`, `name`) of app number ?1 with key ≤ ?3: the WHERE of a SELECT over `schedules AS s`
    /// (?2 the event or run, ?4/?5 the run's id range).
    private func matchSQL(_ kind: CancelJob.Kind) -> String {
        switch kind {
        case .event: "s.key IN (SELECT key FROM schedule_events WHERE app = ?1 AND event = ?2 AND key <= ?3)"
        case .run: "s.app = ?1 AND (s.id = ?2 OR (s.id >= ?4 AND s.id < ?5)) AND s.key <= ?3"
        }
    }

    private func bindMatch(_ st: SQLiteStatement, app: Int64, kind: CancelJob.Kind, name: String, bound: Int64) {
        st.bind(1, app)
        st.bind(2, name)
        st.bind(3, bound)
        if kind == .run {
            st.bind(4, name + ":")
            st.bind(5, name + ";")
        }
    }

    private func hasJob(ofApp app: String) throws(StoreError) -> Bool {
        try count(app: app) > 0
    }

    /// How many schedules a job (`kind`, `name`, `bound`) of `app` made now would cover (none an older
    /// job covers). A count over an index range; with an older job of `app`, one lookup per match.
    public func countCoverable(app: String, kind: CancelJob.Kind, name: String, bound: Int64) throws(StoreError) -> Int {
        if kind == .run && holdsRunSeparator(name) { return 0 }
        let older = try hasJob(ofApp: app)
        return try sql { () throws(SQLiteError) -> Int in
            let n = try lookupApp(app)
            let text: String
            switch (kind, older) {
            case (.event, false): text = "SELECT count(*) FROM schedule_events WHERE app = ?1 AND event = ?2 AND key <= ?3"
            case (.run, false):
                text = "SELECT count(*) FROM schedules AS s WHERE s.app = ?1 AND (s.id = ?2 OR (s.id >= ?4 AND s.id < ?5))"
            case (_, true): text = "SELECT count(*) FROM schedules AS s WHERE \(matchSQL(kind))\(uncoveredSQL)"
            }
            let st = try db.statement(text)
            defer { st.reset() }
            bindMatch(st, app: n, kind: kind, name: name, bound: bound)
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }

    /// The first `limit` of those (`covered` of them: `countCoverable`), by (next due, key).
    public func firstCoverable(app: String, kind: CancelJob.Kind, name: String, bound: Int64, covered: Int, limit: Int)
        throws(StoreError) -> [StoredSchedule] {
        if kind == .run && holdsRunSeparator(name) { return [] }
        let older = try hasJob(ofApp: app)
        let n = try sql { () throws(SQLiteError) in try lookupApp(app) }
        if kind == .event && !older {
            // Walk the app's due order (schedules_by_app_next) checking each key's event: the first `limit`
            // matches cost about limit × pending / covered steps. Bounded by `covered` steps (the cost of
            // the sort below); when the walk stops short, the sort decides.
            let pending = try counts.pendingCount(app: app)
            let walk = min(pending, max(covered, 4 * limit))
            let keys = try sql { () throws(SQLiteError) -> [Int64] in
                let st = try db.statement("""
                    SELECT w.key FROM (SELECT key FROM schedules WHERE app = ?1 ORDER BY next_due, key LIMIT ?5) AS w
                    WHERE w.key <= ?3 AND EXISTS(SELECT 1 FROM schedule_events AS e WHERE e.app = ?1 AND e.event = ?2 AND e.key = w.key)
                    LIMIT ?4
                    """)
                defer { st.reset() }
                st.bind(1, n)
                st.bind(2, name)
                st.bind(3, bound)
                st.bind(4, Int64(limit))
                st.bind(5, Int64(walk))
                var keys: [Int64] = []
                while try st.step() { keys.append(st.int64(0)) }
                return keys
            }
            if keys.count == limit || walk >= pending || keys.count == covered {
                var rows: [StoredSchedule] = []
                rows.reserveCapacity(keys.count)
                for key in keys { if let s = try selectSchedules("WHERE key = ?1", { $0.bind(1, key) }).first { rows.append(s) } }
                return rows.sorted { ($0.next, $0.key) < ($1.next, $1.key) }
            }
        }
        return try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let st = try db.statement("""
                SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE \(matchSQL(kind))\(uncoveredSQL)
                ORDER BY next_due, key LIMIT ?6
                """)
            defer { st.reset() }
            bindMatch(st, app: n, kind: kind, name: name, bound: bound)
            st.bind(6, Int64(limit))
            return try readSchedules(st)
        }
    }

    /// Adds `job`; returns its number. Schedules stored after it get keys above its bound.
    public func add(_ job: CancelJob) throws(StoreError) -> Int64 {
        try sql { () throws(SQLiteError) -> Int64 in
            let st = try db.statement("""
                INSERT INTO cancel_jobs(app, kind, name, reason, at, bound, remaining) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """)
            st.bind(1, try internApp(job.app))
            st.bind(2, job.kind.rawValue)
            st.bind(3, job.name)
            st.bind(4, job.reason)
            st.bind(5, job.at.microseconds)
            st.bind(6, job.bound)
            st.bind(7, Int64(job.remaining))
            try st.run()
            floor = max(floor ?? 0, job.bound)
            apps.insert(try lookupApp(job.app))
            return db.lastInsertRowid
        }
    }

    /// At most `limit` schedules `job` still covers, by key (the slice to cancel next; older jobs done).
    public func nextCovered(_ job: CancelJob, limit: Int) throws(StoreError) -> [StoredSchedule] {
        try sql { () throws(SQLiteError) -> [StoredSchedule] in
            let text = switch job.kind {
            case .event:
                "SELECT \(StoreRowCoding.columns) FROM schedules WHERE key IN (SELECT key FROM schedule_events "
                    + "WHERE app = ?1 AND event = ?2 AND key <= ?3 ORDER BY key LIMIT ?6) ORDER BY key"
            case .run:
                "SELECT \(StoreRowCoding.columns) FROM schedules AS s WHERE \(matchSQL(.run)) LIMIT ?6"
            }
            let st = try db.statement(text)
            defer { st.reset() }
            bindMatch(st, app: try lookupApp(job.app), kind: job.kind, name: job.name, bound: job.bound)
            st.bind(6, Int64(limit))
            return try readSchedules(st)
        }
    }

    /// The oldest job covering the pending schedule (`app`, `id`, `key`), if any.
    /// No statement unless `app` may have a job; then its jobs by `cancel_jobs_by_app` (never another app's).
    public func covering(app: String, id: String, key: Int64) throws(StoreError) -> CancelJob? {
        let jobs = try sql { () throws(SQLiteError) -> [CancelJob] in
            let n = try lookupApp(app)
            guard mayHaveCancelJob(n) else { return [] }
            let st = try db.statement("""
                SELECT n, kind, name, reason, at, bound, remaining FROM cancel_jobs WHERE app = ?1 AND bound >= ?2 ORDER BY n
                """)
            defer { st.reset() }
            st.bind(1, n)
            st.bind(2, key)
            var jobs: [CancelJob] = []
            while try st.step() {
                jobs.append(CancelJob(n: st.int64(0), app: app, kind: CancelJob.Kind(rawValue: st.int64(1)) ?? .event,
                                      name: st.string(2), reason: st.string(3), at: Instant(microseconds: st.int64(4)),
                                      bound: st.int64(5), remaining: Int(st.int64(6))))
            }
            return jobs
        }
        for job in jobs {
            switch job.kind {
            case .run:
                if isMember(id: id, ofRun: job.name) { return job }
            case .event:
                let hit = try sql { () throws(SQLiteError) -> Bool in
                    let st = try db.statement("SELECT 1 FROM schedule_events WHERE app = ?1 AND event = ?2 AND key = ?3")
                    defer { st.reset() }
                    st.bind(1, try lookupApp(app))
                    st.bind(2, job.name)
                    st.bind(3, key)
                    return try st.step()
                }
                if hit { return job }
            }
        }
        return nil
    }

    /// `remaining` of job `n` goes down by `count`.
    public func progress(_ n: Int64, cancelled count: Int) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("UPDATE cancel_jobs SET remaining = max(0, remaining - ?2) WHERE n = ?1")
            st.bind(1, n)
            st.bind(2, Int64(count))
            try st.run()
        }
    }

    public func delete(_ n: Int64) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM cancel_jobs WHERE n = ?1")
            st.bind(1, n)
            try st.run()
        }
    }

    /// Covered schedules still pending, of `app` (nil: of every app): what PendingCount subtracts.
    public func coveredRemaining(app: String?) throws(StoreError) -> Int {
        guard mayExist else { return 0 }
        return try sql { () throws(SQLiteError) -> Int in
            if let app, !mayHaveCancelJob(try lookupApp(app)) { return 0 }
            let st = try db.statement(app == nil ? "SELECT coalesce(sum(remaining), 0) FROM cancel_jobs"
                                      : "SELECT coalesce(sum(remaining), 0) FROM cancel_jobs WHERE app = ?1")
            defer { st.reset() }
            if let app { st.bind(1, try lookupApp(app)) }
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }
}
