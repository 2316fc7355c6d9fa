/// A point on the UTC time line: microseconds since 1970-01-01T00:00:00Z, leap seconds ignored
/// (POSIX time, as `CLOCK_REALTIME`, systemd's `usec_t` and SQLite integers count it).
///
/// Microsecond resolution matches systemd calendar events (`*:*:01.000001`) and `timerfd`.
/// Range: the whole `Int64` (±292,000 years); calendar math in this module is defined for
/// years 1–9999, and systemd-compatible elapses for 1970–2199.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the Unix epoch; negative before 1970.
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// An instant a whole number of seconds after the epoch.
    public init(seconds: Int64) { self.microseconds = seconds &* 1_000_000 }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    public var seconds: Int64 { floorDiv(microseconds, 1_000_000) }

    /// The microsecond within the second, 0...999_999.
    public var microsecondOfSecond: Int64 { floorMod(microseconds, 1_000_000) }

    public static func < (a: Instant, b: Instant) -> Bool { a.microseconds < b.microseconds }

    public func adding(microseconds delta: Int64) -> Instant { Instant(microseconds: microseconds + delta) }
    public func adding(seconds delta: Int64) -> Instant { Instant(microseconds: microseconds + delta * 1_000_000) }

    /// RFC 3339 in UTC with `Z`; fractional seconds only when non-zero, trailing zeros trimmed.
    /// `Instant(seconds: 0).rfc3339` is `1970-01-01T00:00:00Z`.
    public var rfc3339: String {
        CivilDateTime(instant: self, offsetSeconds: 0).iso8601(withOffset: 0, utcDesignator: true)
    }

    public var description: String { rfc3339 }
}

/// Division rounding towards negative infinity.
@inlinable public func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
}

/// Remainder with the sign of the divisor (so `floorMod(-1, 60) == 59`).
@inlinable public func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
    let r = a % b
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r
}
