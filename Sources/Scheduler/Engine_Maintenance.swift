import SchedCalendar

/// How much history the store keeps (CONTRACT §5): records older than `days` or beyond the newest
/// `maxRecords` go, whichever is reached first. `days` ≥ 30 (history is kept at least 30 days).
public struct HistoryRetention: Sendable, Hashable {
    public var days: Int64
    public var maxRecords: Int
    /// 90 days, 100,000 records.
    public static let standard = HistoryRetention(standardDays: 90, maxRecords: 100_000)
    /// The shortest `days` accepted.
    public static let minimumDays: Int64 = 30

    private init(standardDays: Int64, maxRecords: Int) { days = standardDays; self.maxRecords = maxRecords }

    /// `.invalidArgument` naming the option and the rule when out of range.
    public init(days: Int64, maxRecords: Int) throws(EngineError) {
        guard days >= Self.minimumDays, days <= 36_500 else {
            throw EngineError(.invalidArgument, "--history-days: must be between \(Self.minimumDays) and 36500, not \(days)")
        }
        guard maxRecords >= 1, maxRecords <= 100_000_000 else {
            throw EngineError(.invalidArgument, "--history-max: must be between 1 and 100000000, not \(maxRecords)")
        }
        self.days = days
        self.maxRecords = maxRecords
    }
}

// Bounded growth: retention of history, tombstones, finished records, applied digests and failed deliveries,
// and page reclaim — in small steps, each one short transaction, run between firing batches and when idle.
extension Engine {
    /// Rows each kind may lose per step, and pages reclaimed per step (4 KiB each). A step costs a few
    /// milliseconds; larger than a firing batch, so retention keeps up with a long `clock advance`.
    static let maintenanceRowsPerStep = 2_000
    static let maintenancePagesPerStep = 512

    /// How often maintenance runs when there is no backlog (by the engine's `now`).
    static let maintenanceIntervalMicroseconds: Int64 = 3_600_000_000

    /// Maintenance over the engine's state with its retention. O(1).
    var maintenance: Maintenance { Maintenance(state: state, retention: retention) }

    /// One bounded maintenance step at `now`; returns whether more work remains (call again when idle).
    /// One short transaction (`Maintenance.step`).
    @discardableResult
    public func maintenanceStep(now: Instant) throws(EngineError) -> Bool { try maintenance.step(now: now) }

    /// Idle-time maintenance for the daemon's loop: at most one step, only when owed. Returns whether
    /// more remains (the loop may call again at its next idle moment). `Maintenance.ifDue`.
    @discardableResult
    public func maintainWhenIdle(now: Instant) throws(EngineError) -> Bool {
        try maintenance.ifDue(now: now)
        return state.maintenanceBacklog
    }
}

/// When retention runs: a part of the engine over its one state (docs/architecture.md "The engine's
/// parts"), reading and writing its maintenance counters (`lastMaintenance`, `maintenanceBacklog`).
/// Firing runs it between batches (`FiringStep`), the daemon's loop when idle.
struct Maintenance {
    let state: EngineState
    let retention: HistoryRetention

    /// One bounded step at `now` (`RetentionStep`, one transaction); records when it ran and whether it hit a
    /// limit. Returns whether more work remains. A few milliseconds at most.
    @discardableResult
    func step(now: Instant) throws(EngineError) -> Bool {
        let more = try state.transaction { (_: inout ChangeSet) throws(StoreError) -> Bool in
            try RetentionStep(store: state.store, retention: retention).run(now: now)
        }.result
        state.lastMaintenance = now
        state.maintenanceBacklog = more
        return more
    }

    /// Runs a step when one is owed: a backlog from the previous step, an interval passed
    /// (`Engine.maintenanceIntervalMicroseconds`), or the clock went back. O(1) when none is owed.
    func ifDue(now: Instant) throws(EngineError) {
        guard state.maintenanceBacklog
            || now.microseconds &- state.lastMaintenance.microseconds >= Engine.maintenanceIntervalMicroseconds
            || now < state.lastMaintenance else { return }
        try step(now: now)
    }
}

/// One bounded retention step over the store, as a value: what `Engine.maintenanceStep` runs inside its
/// transaction. Each kind loses at most `Engine.maintenanceRowsPerStep` rows and at most
/// `Engine.maintenancePagesPerStep` pages are reclaimed, so a step costs a few milliseconds.
struct RetentionStep {
    let store: SQLiteScheduleStore
    let retention: HistoryRetention

    /// Purges tombstones past 30 days, finished records past their keep-until, applied digests, failed
    /// deliveries past their grace and history beyond `retention`, then reclaims free pages. Returns whether
    /// any of them hit its limit (more to do). Call inside a transaction.
    func run(now: Instant) throws(StoreError) -> Bool {
        let rows = Engine.maintenanceRowsPerStep
        var full = false
        let tombstoneCutoff = now.adding(seconds: -Engine.tombstoneRetentionSeconds)
        full = try store.tombstones.purge(createdBefore: tombstoneCutoff) >= rows || full
        full = try store.finished.purge(expiredBy: now) >= rows || full
        full = try store.applied.purge(before: tombstoneCutoff, limit: rows) >= rows || full
        // A failed delivery past its grace could only be `missed` on retry: dropped. Its history
        // already ends with `failed` (no record here: restarts and maintenance timing change nothing).
        let expired = try store.failedDeliveries.purge(expiredBy: now, limit: rows)
        full = expired.count >= rows || full
        let historyCutoff = now.adding(seconds: -retention.days * 86_400)
        full = try store.history.purge(olderThan: historyCutoff, keepNewest: retention.maxRecords,
                                      limit: rows) >= rows || full
        full = try store.reclaimFreePages(limit: Engine.maintenancePagesPerStep) >= Engine.maintenancePagesPerStep
            || full
        return full
    }
}
