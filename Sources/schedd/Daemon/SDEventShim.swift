// Every sd_event_* call of schedd lives in this file.
import CSystemd
import Glibc
import SchedCalendar

/// A failed system call during daemon setup, with what was being done.
struct SystemFailure: Error, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    init(errno code: Int32, _ what: String) { message = "\(what): \(String(cString: strerror(abs(code))))" }
    var description: String { message }
}

@discardableResult
private func check(_ result: Int32, _ what: @autoclosure () -> String) throws(SystemFailure) -> Int32 {
    if result < 0 { throw SystemFailure(errno: result, what()) }
    return result
}

/// A Swift closure handed to sd-event as userdata; kept alive by the `EventLoop` that owns it.
private final class Callback {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userdata: UnsafeMutableRawPointer?) -> Callback {
        Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue()
    }
}

/// The daemon's one event loop (`sd_event *`): timers, file descriptors and signals, all handled on
/// the thread that calls `run()`. Nothing wakes it but its sources: no periodic ticks.
final class EventLoop {
    let handle: OpaquePointer
    private var callbacks: [Callback] = []
    private var sources: [OpaquePointer] = []

    init() throws(SystemFailure) {
        var event: OpaquePointer?
        try check(sd_event_new(&event), "cannot create the event loop")
        handle = event!
    }

    deinit {
        for source in sources { sd_event_source_unref(source) }
        sd_event_unref(handle)
    }

    private func keep(_ action: @escaping () -> Void) -> Callback {
        let callback = Callback(action)
        callbacks.append(callback)
        return callback
    }

    /// A one-shot `CLOCK_REALTIME` timer, initially off; `arm(at:)` sets it. Accuracy 1 µs (the
    /// default would let sd-event coalesce it up to 250 ms late).
    func addRealtimeTimer(_ action: @escaping () -> Void) throws(SystemFailure) -> RealtimeTimer {
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_time(handle, &source, clockid_t(CLOCK_REALTIME), UInt64.max, 1,
                                    { _, _, userdata in Callback.from(userdata).action(); return 0 },
                                    callback.userdata), "cannot add the due timer")
        sources.append(source!)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        return RealtimeTimer(source: source!)
    }

    /// Calls `action` whenever `fd` is readable.
    func addReadable(fd: Int32, _ action: @escaping () -> Void) throws(SystemFailure) {
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_io(handle, &source, fd, UInt32(EPOLLIN.rawValue),
                                  { _, _, _, userdata in Callback.from(userdata).action(); return 0 },
                                  callback.userdata), "cannot watch file descriptor \(fd)")
        sources.append(source!)
    }

    /// Handles `signal` in the loop (blocks it for the process first, as sd-event requires).
    func addSignal(_ signal: Int32, _ action: @escaping () -> Void) throws(SystemFailure) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        sigprocmask(SIG_BLOCK, &set, nil)
        let callback = keep(action)
        var source: OpaquePointer?
        try check(sd_event_add_signal(handle, &source, signal,
                                      { _, _, userdata in Callback.from(userdata).action(); return 0 },
                                      callback.userdata), "cannot handle signal \(signal)")
        sources.append(source!)
    }

    /// Sends WATCHDOG=1 at half the interval when `WATCHDOG_USEC` is set (else does nothing).
    func enableWatchdogIfRequested() {
        sd_event_set_watchdog(handle, 1)
    }

    /// Runs until `exit` is called; returns its code.
    func run() -> Int32 { sd_event_loop(handle) }

    /// Makes `run` return `code` after the current callback.
    func exit(_ code: Int32) { sd_event_exit(handle, code) }
}

/// One absolute `CLOCK_REALTIME` timer of an `EventLoop`, firing once per `arm`.
struct RealtimeTimer {
    let source: OpaquePointer

    /// Fires at `instant` (at once when it is past), or never when nil. Being on `CLOCK_REALTIME`,
    /// it stays right after a wall-clock step.
    func arm(at instant: Instant?) {
        guard let instant else {
            sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
            return
        }
        sd_event_source_set_time(source, UInt64(max(1, instant.microseconds)))
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }
}
