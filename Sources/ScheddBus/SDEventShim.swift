// Every sd_event_* call of schedd lives in this file (STYLE §2: one shim, one prefix).
import CSystemd
import Glibc
import ScheddSystem

/// A Swift closure handed to sd-event as userdata; kept alive by the `EventLoop` that owns it.
final class EventCallback {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userdata: UnsafeMutableRawPointer?) -> EventCallback {
        Unmanaged<EventCallback>.fromOpaque(userdata!).takeUnretainedValue()
    }
}

/// An event loop (`sd_event *`): timers, file descriptors, signals and deferred work, all dispatched
/// one at a time on the thread that created it, which must also be the one that calls `run()`.
///
/// Nothing wakes it but its sources: no periodic ticks (the watchdog, when systemd asks for one, is
/// sd-event's own timer, fed from inside the loop — a loop stuck in a callback stops feeding it).
/// Dispatch order within one wake-up: lower `priority` first; bus connections attach at 0.
public final class EventLoop {
    /// The `sd_event *`; for `BusConnection.attach(to:)` only.
    let handle: OpaquePointer
    /// The thread that created the loop: the only one that may run it or touch what it drives.
    let ownerThread: ThreadIdentity
    private var callbacks: [EventCallback] = []
    private var sources: [OpaquePointer] = []

    public init() throws(BusError) {
        var event: OpaquePointer?
        try check(sd_event_new(&event), "create the event loop")
        handle = event!
        ownerThread = ThreadIdentity.current
    }

    deinit {
        for source in sources { sd_event_source_unref(source) }
        sd_event_unref(handle)
    }

    /// True on the loop's own thread.
    public var isOnLoopThread: Bool { ThreadIdentity.current == ownerThread }

    /// Traps off the loop thread (STYLE §5: the one owner, checked).
    public func preconditionOnLoopThread(_ what: @autoclosure () -> String = "", file: StaticString = #fileID,
                                         line: UInt = #line) {
        precondition(isOnLoopThread, "\(what()) used off the event loop's thread", file: file, line: line)
    }

    private func keep(_ action: @escaping () -> Void) -> EventCallback {
        let callback = EventCallback(action)
        callbacks.append(callback)
        return callback
    }

    /// A one-shot timer on `clock` (`CLOCK_REALTIME` for due instants: absolute, so still right after a
    /// wall-clock step; `CLOCK_MONOTONIC` for delays), initially off. Accuracy 1 µs (sd-event's default
    /// would let it fire up to 250 ms late).
    public func addTimer(clock: EventClock, _ action: @escaping () -> Void) throws(BusError) -> EventTimer {
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_time(handle, &source, clock.id, UInt64.max, 1,
                                    { _, _, userdata in EventCallback.from(userdata).action(); return 0 },
                                    callback.userdata), "add a \(clock) timer")
        sources.append(source!)
        try check(sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)), "switch off a new timer")
        return EventTimer(source: source!, loop: handle, clock: clock)
    }

    /// Calls `action` whenever `fd` is readable (level-triggered: until it is drained).
    public func addReadable(fd: Int32, _ action: @escaping () -> Void) throws(BusError) {
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_io(handle, &source, fd, UInt32(EPOLLIN.rawValue),
                                  { _, _, _, userdata in EventCallback.from(userdata).action(); return 0 },
                                  callback.userdata), "watch file descriptor \(fd)")
        sources.append(source!)
    }

    /// Handles `signal` in the loop (blocks it for the process first, as sd-event requires).
    public func addSignal(_ signal: Int32, _ action: @escaping () -> Void) throws(BusError) {
        Signals.block([signal])
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_signal(handle, &source, signal,
                                      { _, _, userdata in EventCallback.from(userdata).action(); return 0 },
                                      callback.userdata), "handle signal \(signal)")
        sources.append(source!)
    }

    /// Deferred work: `trigger()` makes `action` run once, in a later dispatch of this loop, after every
    /// source of higher priority (lower number) that is ready — e.g. after the bus (priority 0) has
    /// handed over every message already waiting. `priority` is sd-event's (0 normal, 100 idle).
    public func addTrigger(priority: Int64, _ action: @escaping () -> Void) throws(BusError) -> EventTrigger {
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_defer(handle, &source,
                                     { _, userdata in EventCallback.from(userdata).action(); return 0 },
                                     callback.userdata), "add deferred work")
        sources.append(source!)
        try check(sd_event_source_set_priority(source, priority), "set the priority of deferred work")
        try check(sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)), "switch off new deferred work")
        return EventTrigger(source: source!)
    }

    /// Sends `WATCHDOG=1` at a quarter of `WATCHDOG_USEC` from the loop's own timer when the service
    /// manager asked for it; returns whether it did. A loop that stops dispatching stops the pings.
    @discardableResult
    public func enableWatchdog() throws(BusError) -> Bool {
        try check(sd_event_set_watchdog(handle, 1), "enable the watchdog") > 0
    }

    /// Runs until `exit` is called; returns its code. Must be called on the loop's thread.
    public func run() -> Int32 {
        preconditionOnLoopThread("EventLoop.run")
        return sd_event_loop(handle)
    }

    /// Runs one iteration: waits up to `microseconds` for an event and dispatches one (tests, tools).
    /// Returns sd_event_run's value (negative errno on failure, 0 when nothing happened).
    @discardableResult
    public func runOnce(waitingUpTo microseconds: UInt64) -> Int32 {
        preconditionOnLoopThread("EventLoop.runOnce")
        return sd_event_run(handle, microseconds)
    }

    /// Makes `run` return `code` after the current callback.
    public func exit(_ code: Int32) { sd_event_exit(handle, code) }

    /// The loop's cached time on `clock` for this iteration, in microseconds.
    public func now(_ clock: EventClock) -> UInt64 {
        var now: UInt64 = 0
        if sd_event_now(handle, clock.id, &now) < 0 {
            return UInt64(clock == .realtime ? SystemTime.realtimeMicroseconds : SystemTime.monotonicMicroseconds)
        }
        return now
    }
}

/// The clock of an `EventTimer`.
public enum EventClock: Sendable, CustomStringConvertible {
    case realtime, monotonic
    var id: clockid_t { self == .realtime ? SystemTime.realtimeClockID : SystemTime.monotonicClockID }
    public var description: String { self == .realtime ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC" }
}

/// One timer of an `EventLoop`, firing once per `arm`. Loop thread only.
public struct EventTimer {
    let source: OpaquePointer
    let loop: OpaquePointer
    public let clock: EventClock

    /// Fires at `microseconds` on its clock (at once when that is past). Throws when sd-event refuses
    /// (then the timer would not fire: the caller must treat that as a failed watch).
    public func arm(atMicroseconds microseconds: UInt64) throws(BusError) {
        try check(sd_event_source_set_time(source, max(1, microseconds)), "set the time of a \(clock) timer")
        try check(sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT)), "arm a \(clock) timer")
    }

    /// Fires `delay` microseconds from now.
    public func arm(afterMicroseconds delay: UInt64) throws(BusError) {
        var now: UInt64 = 0
        try check(sd_event_now(loop, clock.id, &now), "read the loop's \(clock)")
        try arm(atMicroseconds: now &+ delay)
    }

    /// Switches the timer off (it will not fire until armed again).
    public func disarm() throws(BusError) {
        try check(sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF)), "switch off a \(clock) timer")
    }
}

/// Deferred work of an `EventLoop` (see `EventLoop.addTrigger`). Loop thread only.
public struct EventTrigger {
    let source: OpaquePointer

    /// Makes the work run once in a later dispatch (triggering it again before then changes nothing).
    public func trigger() throws(BusError) {
        try check(sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT)), "trigger deferred work")
    }
}
