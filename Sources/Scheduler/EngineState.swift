import SchedCalendar

/// The engine's state, explicit and in one place (issue 32 item 1): the store, the timer wheel, the zone
/// and calendar caches, the open group's changes and the clock-free counters the engine's parts read and
/// write. `Engine` is the facade over it; its parts (`Snoozes`, `Tombstones` …, docs/architecture.md "The
/// engine's parts") are small types holding this one state, so what a part may touch is what it is handed.
///
/// Transactions live here (Engine_Transaction.swift): every write is `transaction { changes in … }`,
/// whose `ChangeSet` is applied to `wheel` (or the open group's) after COMMIT. Not thread-safe: the
/// daemon's loop thread only, like the engine.
final class EngineState {
    let store: SQLiteScheduleStore
    let notifier: any Notifier
    /// The resolver of pinned zone names; the push decoder checks zones through it too.
    let zones: any ZoneResolver
    /// Grace applied when a schedule has none (≥ 0).
    let defaultGraceSeconds: Int64
    /// Every pending schedule's key at its next due (the store's rows are the truth; this is their index
    /// in memory, changed only after a COMMIT: `ChangeSet.applyWheelChanges`).
    var wheel: TimerWheel
    /// Parsed calendar expressions by text (pinned zones resolved at parse): one parse per expression.
    var specCache: [String: CalendarSpec] = [:]
    /// Zone rules by name, the device zone's included.
    var zoneCache: [String: TimeZoneRules] = [:] { didSet { zonesInUseGeneration &+= 1 } }
    /// Changes whenever the zones in use may have changed (`Engine.zonesInUseGeneration`).
    var zonesInUseGeneration = 0
    /// The zone floating schedules currently follow.
    var deviceZone: TimeZoneRules { didSet { zonesInUseGeneration &+= 1 } }
    /// When the last maintenance step ran, and whether it hit a limit (more to purge or reclaim).
    var lastMaintenance: Instant
    var maintenanceBacklog = true
    /// The `now` of the latest call: where the clock stood before an `advance` (its `start`).
    var lastNow: Instant
    /// The `start` of a sliced `advance` that has not finished (nil when none is under way).
    var sliceStart: Instant?
    /// The earliest instant a snoozed notification is to be shown again (cached from the store).
    var snoozeDue: Instant?
    /// The transaction an open `Engine.group` holds (nil outside one): what its finished calls changed,
    /// applied after its COMMIT.
    var openGroup: OpenGroup?
    /// What settling covered schedules (Engine_CancelJobs.swift) found possibly on screen, from committed
    /// transactions only (`ChangeSet.settled`): closed by the engine's next `closeSettled`.
    var settledCloses: [(app: String, id: String, reason: String)] = []

    /// What the machine can do for `wake: true` schedules (`Engine.wakeCapability`).
    var wakeCapability = WakeCapability.unavailable("not checked")
    /// Set when a change may have moved the earliest wake schedule (`Engine.wakeMayHaveChanged`).
    var wakeMayHaveChanged = true

    init(store: SQLiteScheduleStore, notifier: any Notifier, zones: any ZoneResolver, deviceZone: TimeZoneRules,
         defaultGraceSeconds: Int64, now: Instant) {
        self.store = store
        self.notifier = notifier
        self.zones = zones
        self.deviceZone = deviceZone
        self.defaultGraceSeconds = defaultGraceSeconds
        self.wheel = TimerWheel(now: now)
        self.lastMaintenance = now
        self.lastNow = now
        zoneCache[deviceZone.name] = deviceZone
    }

    /// A schedule's grace: its own, else the default. O(1).
    func grace(of schedule: StoredSchedule) -> Int64 { schedule.graceSeconds ?? defaultGraceSeconds }

    /// Copies the title, messageId and data of the record's schedule (pending, else finished) into it.
    /// Inside a transaction's body; two key lookups at most.
    func fillDetails(_ record: inout HistoryRecord) throws(StoreError) {
        if let pending = try store.schedules.schedule(app: record.app, id: record.id) {
            (record.title, record.messageId, record.dataJSON) = (pending.title, pending.messageId, pending.dataJSON)
        } else if let done = try store.finished.record(app: record.app, id: record.id) {
            (record.title, record.messageId, record.dataJSON) = (done.title, done.messageId, done.dataJSON)
        }
    }
}
