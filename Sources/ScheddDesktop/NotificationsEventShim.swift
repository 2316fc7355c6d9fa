import CSystemd
import Glibc

// The sd_event_* calls of the desktop notifier (its reconnect timer); sd_bus_* ones are in
// NotificationsBusShim.swift.

/// A one-shot CLOCK_MONOTONIC timer on an sd-event loop (the notifier's reconnect attempts).
/// Not thread-safe: the loop's thread only.
final class NotificationsRetryTimer {
    private var source: OpaquePointer?
    private let box: NotificationsTimerBox

    init(_ fire: @escaping () -> Void) { box = NotificationsTimerBox(fire) }

    deinit { cancel() }

    /// (Re)arms the timer to fire once, `delayMicroseconds` from now, on `event`.
    func arm(on event: OpaquePointer, delayMicroseconds: UInt64) -> Bool {
        var now: UInt64 = 0
        guard sd_event_now(event, CLOCK_MONOTONIC, &now) >= 0 else { return false }
        if let source {
            return sd_event_source_set_time(source, now + delayMicroseconds) >= 0
                && sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT)) >= 0
        }
        let userdata = Unmanaged.passUnretained(box).toOpaque()
        return sd_event_add_time(event, &source, CLOCK_MONOTONIC, now + delayMicroseconds, 1000,
                                 notificationsTimerTrampoline, userdata) >= 0
    }

    func cancel() {
        if let source {
            sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
            sd_event_source_unref(source)
        }
        source = nil
    }
}

final class NotificationsTimerBox {
    let fire: () -> Void
    init(_ fire: @escaping () -> Void) { self.fire = fire }
}

private func notificationsTimerTrampoline(_ source: OpaquePointer?, _ usec: UInt64,
                                          _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    guard let userdata else { return 0 }
    Unmanaged<NotificationsTimerBox>.fromOpaque(userdata).takeUnretainedValue().fire()
    return 0
}
