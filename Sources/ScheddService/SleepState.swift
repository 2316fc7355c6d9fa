import SchedCalendar
import Scheduler

/// What the daemon knows about the machine's sleep (CONTRACT §11 "Resume"), for `schedd status` and the
/// fold summary's wording. Owned by the loop thread; written by the sleep part (schedd/Daemon/SleepWatch.swift,
/// logind or the clocks) and by the fake clock's `ClockSleep`, read by `Service.statusJSON`.
public final class SleepState {
    /// When the machine last went to sleep (logind's PrepareForSleep(true), or the start of the gap the
    /// clocks showed), on the daemon's clock.
    public var lastSleep: Instant?
    /// When it last resumed.
    public var lastResume: Instant?
    /// How sleep is noticed: `logind` (PrepareForSleep on the system bus) or `clocks` (CLOCK_BOOTTIME
    /// against CLOCK_MONOTONIC when the due timer or a clock-change wakes the loop), `fake clock`.
    public var source = "clocks"
    /// The delay inhibitor: `held`, `released` (the machine is going to sleep), or why there is none.
    public var inhibitor = "none: logind not on the system bus"
    /// The wake timer: `armed for T`, `idle (no wake schedule)`, or `unavailable: why`.
    public var wakeTimer = "idle (no wake schedule)"

    public init() {}

    /// `{"source","inhibitor","lastSleep","lastResume"}`.
    public var json: JSONValue {
        .object([
            JSONMember("source", .string(source)), JSONMember("inhibitor", .string(inhibitor)),
            JSONMember("lastSleep", .instant(lastSleep)), JSONMember("lastResume", .instant(lastResume)),
        ])
    }
}

/// `Status() → s` (CONTRACT §11 "Status"; `schedd status`): what a person checks first.
extension Service {
    /// `{"version","database":{"path","bytes"},"pending","snoozed","nextDue","clock","notifier":{…},
    /// "wake":{"capability","reason","timer"},"sleep":{…},"bus"}`. Counts and the next due are the caller's
    /// app's for a sandboxed caller, every app's otherwise. The daemon's own members (`statusMembers`:
    /// version, database, notifier, bus) come first. O(log n + snoozed).
    func statusJSON(caller: Caller) throws(ServiceFailure) -> String {
        let app: String? = caller.sandboxed ? caller.app : nil
        let engine = engine()
        let pending = try engineCall { _ throws(EngineError) in try engine.pendingCount(app: app) }
        let snoozed = try engineCall { _ throws(EngineError) in try engine.snoozedList(app: app, limit: Int.max).count }
        let nextDue: Instant? = app == nil ? engine.nextDue : nil
        var members = statusMembers()
        members += [
            JSONMember("pending", .number(String(pending))), JSONMember("snoozed", .number(String(snoozed))),
            JSONMember("nextDue", .instant(nextDue)),
            JSONMember("clock", .object([JSONMember("now", .string(clock.now.rfc3339)),
                                         JSONMember("fake", .bool(clock.fake != nil))])),
            JSONMember("wake", .object([
                JSONMember("capability", .string(engine.wakeCapability.word)),
                JSONMember("reason", .optional(engine.wakeCapability.reason)),
                JSONMember("timer", .string(sleep.wakeTimer)),
            ])),
            JSONMember("sleep", sleep.json),
        ]
        return JSONValue.object(members).serialized()
    }
}
