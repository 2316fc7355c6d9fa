// STUB (to be replaced by the systemd calendar-event implementation).

/// Why a calendar expression was rejected; `message` says what is wrong and where.
public struct CalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A parsed systemd.time(7) calendar-event expression (`Mon..Fri 09:00`, `*-*-01 08:30 Europe/Berlin`).
public struct CalendarSpec: Sendable, Hashable {
    /// The expression as given.
    public let source: String
    /// systemd's normalized form (`Mon..Fri *-*-* 09:00:00`), identical to `systemd-analyze calendar`.
    public let normalized: String
    /// The zone suffix (`UTC`, `Europe/Berlin`) that pins the expression, or nil when it floats.
    public let timeZoneName: String?

    /// Parses `text`; throws with a message naming the problem and its position.
    public init(parsing text: String) throws(CalendarError) {
        source = text; normalized = text; timeZoneName = nil
    }

    /// The first elapse strictly after `instant`, evaluated in `zone` (ignored when the spec is pinned
    /// to its own zone, which callers resolve through `ZoneDatabase`), or nil when there is none
    /// (before year 2200).
    public func nextElapse(after instant: Instant, in zone: TimeZoneRules) -> Instant? { nil }
}
