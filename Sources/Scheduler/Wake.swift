import SchedCalendar

/// Whether schedd can wake the machine for `wake: true` schedules (CONTRACT §11 "Wake"), as the daemon
/// found out at start (`ScheddSystem.WakeAlarm.probe`): what the push answer's `wake` member and
/// `schedd status` say.
public enum WakeCapability: Sendable, Hashable {
    /// A CLOCK_REALTIME_ALARM timer can be armed: the machine wakes for the earliest wake schedule.
    case armed
    /// It cannot; the reason names what is missing (CAP_WAKE_ALARM, an RTC with an alarm).
    case unavailable(String)

    /// `armed` or `unavailable`.
    public var word: String {
        switch self {
        case .armed: "armed"
        case .unavailable: "unavailable"
        }
    }

    /// Why not, nil when armed.
    public var reason: String? {
        if case .unavailable(let reason) = self { return reason }
        return nil
    }
}

extension Engine {
    /// How long before a wake schedule's due the machine is woken: 30 s, so the resume (devices, network,
    /// the notification server) is over when the alarm is due (KAlarm uses a lead time for the same reason).
    public static let wakeLeadSeconds: Int64 = 30

    /// The earliest due instant of a pending `wake: true` schedule, nil when none. One index seek.
    public func earliestWake() throws(EngineError) -> Instant? {
        try state.storage { () throws(StoreError) in try store.schedules.earliestWake() }
    }

    /// When the wake timer should go off for `due`: `wakeLeadSeconds` before it.
    public static func wakeInstant(forDue due: Instant) -> Instant { due.adding(seconds: -wakeLeadSeconds) }
}
