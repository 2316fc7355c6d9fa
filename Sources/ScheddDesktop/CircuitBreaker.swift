/// The circuit breaker of one notification server instance: while it is open every call to the server
/// fails at once with `reason`, because the server let a call time out before (it is taken as hung).
///
/// Shape: a pure value (a two-state machine), owned by `DesktopNotifier`; no bus, no clock.
///
///     closed ──open(afterTimeoutOf:)──▶ open(reason) ──reset()──▶ closed
///
/// Opening an open circuit changes nothing (the first timeout's reason stays). `reset` is called when
/// org.freedesktop.Notifications changes owner (a new server instance). Example: with the 2 s call
/// timeout, `open(afterTimeoutOf: "Notify")` gives the reason "notification server did not answer Notify
/// within 2.0 s; not called again until it restarts". Every operation is O(1).
public struct CircuitBreaker: Sendable, Hashable {
    /// Why the circuit is open, nil while it is closed.
    public private(set) var reason: String?
    /// The call timeout the reason names, in microseconds.
    public let timeoutMicroseconds: UInt64

    public init(timeoutMicroseconds: UInt64) {
        self.timeoutMicroseconds = timeoutMicroseconds
    }

    /// True while calls fail at once.
    public var isOpen: Bool { reason != nil }

    /// Opens the circuit after `operation` (a D-Bus member) timed out. Returns true when this call
    /// opened it, false when it was open already (the reason is kept).
    public mutating func open(afterTimeoutOf operation: String) -> Bool {
        guard reason == nil else { return false }
        reason = "notification server did not answer \(operation) within "
            + "\(Double(timeoutMicroseconds) / 1e6) s; not called again until it restarts"
        return true
    }

    /// Closes the circuit: a new server instance gets called again.
    public mutating func reset() { reason = nil }
}
