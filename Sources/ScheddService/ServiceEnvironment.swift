import SchedCalendar

// What the service's parts need from the process around them, as small protocols: the daemon gives
// them the journal logger, sd-event triggers and sd_notify; the dispatch fuzzer and the unit tests give
// them recording doubles that run triggers at once. None of the parts knows sd-bus or sd-event.

/// How serious a log line is (journal priorities).
public enum ServiceLogLevel: Sendable { case info, warning, error }

/// Where the parts log (the daemon's journal logger). Notification titles and bodies are never logged.
public protocol ServiceLog: AnyObject {
    func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?)
}

extension ServiceLog {
    public func info(_ message: String, id: String? = nil, run: String? = nil) { write(.info, message, id: id, run: run) }
    public func warning(_ message: String, id: String? = nil, run: String? = nil) { write(.warning, message, id: id, run: run) }
    public func error(_ message: String, id: String? = nil, run: String? = nil) { write(.error, message, id: id, run: run) }
}

/// A loop callback that runs once, soon, below the bus in priority (an sd-event defer source).
/// `trigger()` asks for one run; asking again before it ran does nothing more.
public protocol LoopTrigger: AnyObject {
    func trigger() throws(LoopTriggerError)
}

/// A trigger that could not be scheduled (the loop refused).
public struct LoopTriggerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A wall-clock timer on the loop that runs its part's action when it expires (an sd-event
/// `CLOCK_REALTIME` timer source in the daemon). A part makes it in its `init` from the `LoopTimerMaker` it
/// was given, with its own action, and is the only one to arm it (sd-event: each source one callback).
public protocol LoopTimer: AnyObject {
    /// Expires at `instant` (replacing any earlier arming), or never when nil; throws when the loop refuses.
    func arm(at instant: Instant?) throws(LoopTriggerError)
}

/// Makes a part's `LoopTimer`, given the action its expiry runs; nil when the loop could not make one (the
/// maker reports that: the daemon does not start). A part given no maker (a fake clock) has no timer.
public typealias LoopTimerMaker = (_ expired: @escaping () -> Void) -> LoopTimer?

/// What was cancelled and why, for the log and the bus's signals, once the change is durable. The
/// daemon's announcer logs one summary line and emits the signals (bounded: `Announcements`).
public protocol CancelAnnouncer: AnyObject {
    func announceCancelled(_ ids: [String], reason: String, app: String)
    /// `ids` were cancelled and `unlisted` more (a cancellation job's, cancelled in slices after the answer).
    func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String)
}

extension CancelAnnouncer {
    public func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String) {
        announceCancelled(ids, reason: reason, app: app)
    }
}
