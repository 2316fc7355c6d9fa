// STUB (to be replaced by the hierarchical timing wheel): a sorted array with the final API.
import SchedCalendar

/// A hierarchical hashed timing wheel (Varghese & Lauck) of schedule keys by due instant.
///
/// Holds only a key (the schedule's SQLite rowid) and its due instant per timer. Not thread-safe:
/// owned by one isolation domain. Expiry order is by (due, key), so ties break deterministically.
public struct TimerWheel: Sendable {
    private var entries: [(key: Int64, due: Instant)] = []
    /// The instant the wheel has advanced to.
    public private(set) var now: Instant

    public init(now: Instant) { self.now = now }

    /// Number of pending timers.
    public var count: Int { entries.count }

    /// Adds a timer, or moves an existing one with the same key. O(1).
    /// A `due` at or before `now` expires on the next `advance`.
    public mutating func insert(key: Int64, due: Instant) {
        cancel(key: key)
        entries.append((key, due))
    }

    /// Removes a timer; returns whether it was present. O(1).
    @discardableResult public mutating func cancel(key: Int64) -> Bool {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return false }
        entries.remove(at: i)
        return true
    }

    /// The due instant of `key`, if pending.
    public func due(ofKey key: Int64) -> Instant? { entries.first(where: { $0.key == key })?.due }

    /// The exact earliest due instant of any pending timer (nil when empty), so the owner can sleep
    /// until then instead of ticking.
    public var nextExpiry: Instant? { entries.map(\.due).min() }

    /// Moves the wheel to `instant`, removing and returning every timer due at or before it in
    /// (due, key) order. Moving backwards (a clock step back) expires nothing and keeps every timer.
    public mutating func advance(to instant: Instant) -> [(key: Int64, due: Instant)] {
        now = instant
        let expired = entries.filter { $0.due <= instant }.sorted { ($0.due, $0.key) < ($1.due, $1.key) }
        entries.removeAll { $0.due <= instant }
        return expired
    }
}
