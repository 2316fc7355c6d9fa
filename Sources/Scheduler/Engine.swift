import SchedCalendar

/// schedd's core: durable schedules, the timer wheel and the firing rules (CONTRACT §1–§5).
///
/// Takes `now` as an argument and never reads a clock. Not thread-safe: owned by the daemon's loop
/// thread (or a test). Every mutating call returns only after its effect is durable in the store.
///
/// In memory the engine holds only the timer wheel (key = SQLite rowid, due instant) and a few zones;
/// titles, bodies and every other field stay in SQLite and are read when a schedule fires.
///
/// Delivery is **at-most-once** (docs/semantics.md): a firing is committed to the store (history
/// `fired`, the one-shot removed / the calendar advanced) *before* the notifier is called. A crash
/// between the commit and the display loses that display; it can never show a notification twice.
/// History stays honest about it: a `fired` record is confirmed only by the commit after its hand-over,
/// and a restarted engine turns the records it cannot confirm into `unconfirmed`.
public final class Engine {
    /// Grace applied when a schedule has no `graceSeconds` (README: "Late and missed").
    public static let defaultGraceSeconds: Int64 = 3600

    /// The app of callers that name none (CONTRACT §8; docs/apps.md): the CLI at a terminal, scripts, and
    /// every schedule stored before apps existed (schema step 3). Equal to ScheddApps' `AppID.defaultApp`.
    public static let defaultApp = "org.schedd.Default"

    /// Pending schedules per app, by default (CONTRACT §8 "Quota"; `schedd run --max-pending-per-app N`):
    /// 1,000,000 — the load schedd is benchmarked at (BENCHMARKS.md: 1M pending timers), so no app can
    /// take the daemon beyond what it is known to handle; far above any reminder app's needs (a year of
    /// daily reminders is 365). Lower it for untrusted apps.
    public static let defaultMaxPendingPerApp = 1_000_000

    /// Stored bytes of pending schedules per app, by default (CONTRACT §8 "Quota"; `schedd run
    /// --max-bytes-per-app N`): 256 MiB — the count quota's million pushes of typical size (~200 B as
    /// counted; BENCHMARKS.md's 1M load holds 194 MB), but only 4,096 of the largest (64 KiB), so one app
    /// can no longer fill ~64 GB of disk. Counted as `ScheduleTable.storedBytes` (texts and id, plus 64 per
    /// schedule).
    public static let defaultMaxBytesPerApp = 256 << 20

    /// How long tombstones are kept at least (CONTRACT §1: "at least 30 days").
    public static let tombstoneRetentionSeconds: Int64 = 30 * 86_400

    /// Due entries recorded per transaction while advancing: bounds a transaction's size when a long
    /// `clock advance` fires many occurrences, while keeping one fsync per batch.
    static let firingBatchSize = 1000

    /// Entries due less than this before the `now` of an advance are on time (the real clock's due timer):
    /// they are committed and handed over one per batch. Matches the daemon's timer-latency tolerance.
    static let onTimeMicroseconds: Int64 = 1_000_000

    /// How many firings the previous process recorded but could not confirm handing over (marked
    /// `unconfirmed` when this engine opened the store).
    public private(set) var unconfirmedAtStart = 0

    /// Everything the engine's parts share (EngineState.swift): the store, the wheel, the caches, the counters.
    let state: EngineState
    var store: SQLiteScheduleStore { state.store }
    var notifier: any Notifier { state.notifier }
    /// The resolver of pinned zone names; the push decoder checks zones through it too.
    public var zones: any ZoneResolver { state.zones }
    var defaultGraceSeconds: Int64 { state.defaultGraceSeconds }
    /// The quota: pending schedules per app (CONTRACT §8). A push that would exceed it is rejected.
    public let maxPendingPerApp: Int
    /// The byte quota: stored bytes of pending schedules per app (CONTRACT §8). A push that would take its
    /// app above it is rejected. ≥ 1. Given to the store's history table in `init` (its trimming bound).
    public let maxBytesPerApp: Int
    var wheel: TimerWheel {
        get { state.wheel }
        _modify { yield &state.wheel }
    }
    /// Changes whenever the zones in use (`zoneNamesInUse`) may have changed: a watcher that synced at one
    /// generation needs no new sync until it differs (the daemon asks after every commit; building the
    /// sorted name list each time cost ~15 µs per Push, BENCHMARKS.md §3b).
    public var zonesInUseGeneration: Int { state.zonesInUseGeneration }
    /// How much history is kept.
    public let retention: HistoryRetention
    /// True while a sliced `advance(maxBatches:)` left due entries for a further call.
    public var isAdvancing: Bool { state.sliceStart != nil }

    /// The folding rule (CONTRACT §11 "No flood"; Folding.swift): more than this many late notifications of
    /// one app due at once become one summary. `schedd run --fold-threshold N`; 0 turns folding off.
    public let foldThreshold: Int
    /// Why the next catch-up's late notifications are late: the summary's wording (Folding.swift). The
    /// daemon's parts set it when they learn of a resume or a clock step, before they deliver; it starts as
    /// `.start` (the catch-up of a start). An `advance` that finishes (not sliced further) has delivered
    /// that catch-up, so it sets the cause back to `.delayed`: a later late batch (a storage failure's
    /// recovery) is not worded as a sleep, a start or a jump that it was not.
    public var lateCause = LateCause.start
    /// What the machine can do for `wake: true` schedules, as the daemon found out (Wake.swift): each
    /// push outcome of a wake schedule carries it.
    public var wakeCapability: WakeCapability {
        get { state.wakeCapability }
        set { state.wakeCapability = newValue }
    }
    /// Set when a change may have moved the earliest wake schedule (a wake push stored, a wake schedule
    /// fired); the daemon re-reads `earliestWake()` and clears it.
    public var wakeMayHaveChanged: Bool {
        get { state.wakeMayHaveChanged }
        set { state.wakeMayHaveChanged = newValue }
    }

    /// The zone floating schedules currently follow.
    public internal(set) var deviceZone: TimeZoneRules {
        get { state.deviceZone }
        set { state.deviceZone = newValue }
    }

    /// Opens the engine over the database at `databasePath` (created 0600 when missing), restoring
    /// every pending schedule. `deviceZone` is the zone floating schedules are resolved in.
    /// `zones` resolves pinned zone names (`timeZone`, calendar zone suffixes).
    public convenience init(databasePath: String, notifier: any Notifier, deviceZone: TimeZoneRules,
                            defaultGraceSeconds: Int64 = Engine.defaultGraceSeconds, zones: any ZoneResolver,
                            retention: HistoryRetention = .standard,
                            maxPendingPerApp: Int = Engine.defaultMaxPendingPerApp,
                            maxBytesPerApp: Int = Engine.defaultMaxBytesPerApp,
                            foldThreshold: Int = Engine.defaultFoldThreshold, now: Instant) throws(EngineError) {
        let store: SQLiteScheduleStore
        do { store = try SQLiteScheduleStore(path: databasePath) } catch {
            throw EngineError(.storage, error.message)
        }
        try self.init(store: store, notifier: notifier, deviceZone: deviceZone, zones: zones,
                      defaultGraceSeconds: defaultGraceSeconds, retention: retention,
                      maxPendingPerApp: maxPendingPerApp, maxBytesPerApp: maxBytesPerApp,
                      foldThreshold: foldThreshold, now: now)
    }

    /// Opens the engine over any store, restoring every pending schedule into the wheel. When the device
    /// zone differs from the one recorded in the store (the zone changed while the daemon was down), what
    /// fell due meanwhile is delivered in the old zone first (late or missed, handed to `notifier`), then
    /// floating schedules are re-resolved as by `deviceZoneChanged`. A recorded zone that no longer loads
    /// is skipped: the catch-up then happens in the new zone, at the caller's first `advance`.
    public init(store: SQLiteScheduleStore, notifier: any Notifier, deviceZone: TimeZoneRules,
                zones: any ZoneResolver, defaultGraceSeconds: Int64 = Engine.defaultGraceSeconds,
                retention: HistoryRetention = .standard,
                maxPendingPerApp: Int = Engine.defaultMaxPendingPerApp,
                maxBytesPerApp: Int = Engine.defaultMaxBytesPerApp,
                foldThreshold: Int = Engine.defaultFoldThreshold, now: Instant) throws(EngineError) {
        guard defaultGraceSeconds >= 0 else { throw EngineError(.invalidArgument, "default grace must be ≥ 0") }
        guard maxPendingPerApp >= 1 else { throw EngineError(.invalidArgument, "max pending per app must be ≥ 1") }
        guard maxBytesPerApp >= 1 else { throw EngineError(.invalidArgument, "max bytes per app must be ≥ 1") }
        guard foldThreshold >= 0 else { throw EngineError(.invalidArgument, "the fold threshold must be ≥ 0 (0: no folding)") }
        self.maxPendingPerApp = maxPendingPerApp
        self.maxBytesPerApp = maxBytesPerApp
        self.foldThreshold = foldThreshold
        self.retention = retention
        state = EngineState(store: store, notifier: notifier, zones: zones, deviceZone: deviceZone,
                            defaultGraceSeconds: defaultGraceSeconds, now: now)
        store.history.limitPerApp = retention.maxRecords
        store.history.maxBytesPerApp = maxBytesPerApp
        try state.storage { () throws(StoreError) in
            unconfirmedAtStart = try store.markUnconfirmed()
            // Streamed straight into the wheel (committed rows: nothing to defer to a commit), so neither the
            // rows nor a wheel log of a million entries is ever held. The kept count sizes the wheel's key
            // table first, so the stream never grows it.
            wheel.reserveCapacity(try store.counts.pendingCount(app: nil))
            try store.schedules.forEachPendingDeadline { (key, due) in wheel.insert(key: key, due: due) }
        }
        let recorded = try state.storage { () throws(StoreError) in try store.meta.value("device_zone") }
        if let recorded, recorded != deviceZone.name, let old = try? resolution.zone(named: recorded) {
            // The zone changed while the daemon was down: what fell due is caught up in the old zone first
            // (late or missed, CONTRACT §2/§3), then the new zone applies (`deviceZoneChanged` does both).
            self.deviceZone = old
            try deviceZoneChanged(to: deviceZone, now: now)
        } else if recorded != deviceZone.name {
            try deviceZoneChanged(to: deviceZone, now: now)
        }
        // tzdata updated while the daemon was down: re-resolve what the new rules move.
        _ = try ZoneRulesUpdate(state: state).recheck(now: now, flush: false)
        snoozes.refreshDue()
        try maintenanceStep(now: now)
    }

    deinit { store.close() }

    /// Closes the database. The engine must not be used afterwards.
    public func close() { store.close() }

    /// The earliest due instant of any pending schedule or snoozed notification: the loop sleeps until then.
    public var nextDue: Instant? {
        switch (wheel.nextExpiry, state.snoozeDue) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    /// Number of pending schedules.
    public var pendingCount: Int { wheel.count }

    /// Number of pending schedules of `app` (nil: of every app), from the store's kept counts: O(log apps)
    /// on SQLite, whatever the number of schedules (`PendingCount`, the `list` footer).
    /// Schedules a cancellation job still covers are not counted (they are cancelled as far as callers see).
    public func pendingCount(app: String?) throws(EngineError) -> Int {
        try state.storage { () throws(StoreError) in try store.counts.pendingCount(app: app) - store.cancelJobs.coveredRemaining(app: app) }
    }

    /// Pending schedules of `app` by next due, paged; `app` nil lists every app's (`list --all-apps`).
    public func list(app: String? = Engine.defaultApp, limit: Int?, offset: Int = 0) throws(EngineError) -> [PendingSchedule] {
        let rows = try state.storage { () throws(StoreError) in
            try store.schedules.byNext(app: app, limit: limit, offset: offset)
        }
        return rows.map(Listings(state: state).pendingSchedule)
    }

    /// The newest `limit` history records of `app` (nil: of every app), oldest first.
    public func history(app: String? = Engine.defaultApp, limit: Int) throws(EngineError) -> [HistoryRecord] {
        try state.storage { () throws(StoreError) in try store.history.records(app: app, limit: limit) }
    }

    /// At most `limit` pending schedules of `app` (nil: of every app) by (next due, key), starting after
    /// `cursor` (from the first when nil), each with its own cursor. O(log n + limit) at any depth
    /// (keyset paging; per app by the (app, next_due, key) index).
    public func listPage(app: String? = Engine.defaultApp, after cursor: PendingCursor?, limit: Int) throws(EngineError)
        -> [(cursor: PendingCursor, schedule: PendingSchedule)] {
        let rows = try state.storage { () throws(StoreError) in try store.schedules.byNext(app: app, after: cursor, limit: limit) }
        return rows.map { ($0.cursor, Listings(state: state).pendingSchedule($0)) }
    }

    /// At most `limit` pending schedules of `app` (nil: of every app) by (next due, key) after skipping
    /// `offset` of them, each with its cursor: where a client asked to start at a row number.
    /// O(offset + limit), once; the following pages continue from the last row's cursor.
    public func listPage(app: String? = Engine.defaultApp, skipping offset: Int, limit: Int) throws(EngineError)
        -> [(cursor: PendingCursor, schedule: PendingSchedule)] {
        let rows = try state.storage { () throws(StoreError) in try store.schedules.byNext(app: app, limit: limit, offset: offset) }
        return rows.map { ($0.cursor, Listings(state: state).pendingSchedule($0)) }
    }

    /// At most `limit` history records of `app` (nil: of every app) older than sequence number `before`
    /// (the newest when nil), newest first. O(log n + limit) at any depth.
    public func historyPage(app: String? = Engine.defaultApp, before: Int64?, limit: Int) throws(EngineError)
        -> [SequencedHistoryRecord] {
        try state.storage { () throws(StoreError) in try store.history.records(app: app, before: before, limit: limit) }
    }

    /// Records what the person did with a shown notification of `app`: `opened` (reason `action:KEY`;
    /// `ran`/`ok`: what opening ran for the app and whether it worked) or `dismissed`. The record
    /// carries the schedule's title, messageId and data when they are still known.
    public func recordInteraction(app: String = Engine.defaultApp, id: String, event: HistoryRecord.Event,
                                  reason: String?, ran: String? = nil, ok: Bool? = nil, now: Instant) throws(EngineError) {
        guard event == .opened || event == .dismissed else {
            throw EngineError(.invalidArgument, "interaction must be opened or dismissed, not \(event.rawValue)")
        }
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            var record = HistoryRecord(app: app, id: id, event: event, at: now, due: nil, reason: reason,
                                       lateSeconds: nil, title: nil, messageId: nil, dataJSON: nil)
            try state.fillDetails(&record)
            record.ran = ran
            record.ok = ok
            try store.history.append(record)
        }
    }
}
