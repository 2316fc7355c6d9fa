// STUB (to be replaced by the real engine): the API the daemon programs against.
import SchedCalendar

/// schedd's core: durable schedules, the timer wheel and the firing rules (CONTRACT §1–§5).
///
/// Takes `now` as an argument and never reads a clock. Not thread-safe: owned by the daemon's loop
/// thread (or a test). Every mutating call returns only after its effect is durable in the store.
public final class Engine {
    /// Grace applied when a schedule has no `graceSeconds` (README: "Late and missed").
    public static let defaultGraceSeconds: Int64 = 3600

    /// Opens the engine over the database at `databasePath` (created 0600 when missing), restoring
    /// every pending schedule. `deviceZone` is the zone floating schedules are resolved in.
    public init(databasePath: String, notifier: any Notifier, deviceZone: TimeZoneRules,
                defaultGraceSeconds: Int64 = Engine.defaultGraceSeconds, now: Instant) throws(EngineError) {
        self.deviceZone = deviceZone
    }

    /// The zone floating schedules currently follow.
    public private(set) var deviceZone: TimeZoneRules

    /// Applies one push (cancel first, then local). Durable before it returns.
    public func push(_ push: Push, now: Instant) throws(EngineError) -> [PushOutcome] { [] }

    /// Applies many pushes in one group commit; outcomes in input order.
    public func pushBatch(_ pushes: [Push], now: Instant) throws(EngineError) -> [[PushOutcome]] { [] }

    /// `track NAME`: cancels every pending schedule whose cancelOn holds `event` and that was stored
    /// before now; returns their ids.
    public func track(event: String, dataJSON: String?, now: Instant) throws(EngineError) -> [String] { [] }

    /// Cancels one schedule (reason `cli`), leaving a tombstone even when unknown; returns the ids cancelled.
    public func cancel(id: String, now: Instant) throws(EngineError) -> [String] { [] }

    /// Cancels every schedule of a run (reason `run`), leaving a run tombstone.
    public func cancel(run: String, now: Instant) throws(EngineError) -> [String] { [] }

    /// Pending schedules by next due, paged.
    public func list(limit: Int?, offset: Int = 0) throws(EngineError) -> [PendingSchedule] { [] }

    /// The newest `limit` history records, oldest first.
    public func history(limit: Int) throws(EngineError) -> [HistoryRecord] { [] }

    /// Moves to `now`, delivering what is due (see `AdvanceMode`); returns what was handed to the
    /// notifier, in order. Delivered and recorded before it returns.
    @discardableResult
    public func advance(to now: Instant, mode: AdvanceMode) throws(EngineError) -> [DueNotification] { [] }

    /// The device zone changed: floating schedules are re-resolved to their wall time in `zone`.
    public func deviceZoneChanged(to zone: TimeZoneRules, now: Instant) throws(EngineError) { deviceZone = zone }

    /// The earliest due instant of any pending schedule: the loop sleeps until then.
    public var nextDue: Instant? { nil }

    /// Retries every notification whose delivery `failed` (a notification server appeared).
    public func retryFailed(now: Instant) throws(EngineError) -> [DueNotification] { [] }

    /// Records what the person did with a shown notification: `opened` (reason `action:KEY`) or `dismissed`.
    public func recordInteraction(id: String, event: HistoryRecord.Event, reason: String?, now: Instant)
        throws(EngineError) {}
}
