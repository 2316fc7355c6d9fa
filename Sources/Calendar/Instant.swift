/// A point on the UTC time line: microseconds since 1970-01-01T00:00:00Z, leap seconds ignored
/// (POSIX time, as `CLOCK_REALTIME`, systemd's `usec_t` and SQLite integers count it).
///
/// Microsecond resolution matches systemd calendar events (`*:*:01.000001`) and `timerfd`.
/// Representable: the whole `Int64` (±292,000 years). *Supported* (`Instant.supportedRange`):
/// years 1–9999, where calendar math in this module is defined; systemd-compatible elapses cover
/// 1970–2199. Arithmetic never traps: `adding` saturates at the ends of `Int64`, `checkedAdding`
/// and `init?(exactlySeconds:)` report overflow, and boundaries that take instants from outside
/// (clock set and advance, fake-clock start) check `supportedRange` and name it in their errors.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the Unix epoch; negative before 1970.
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// An instant a whole number of seconds after the epoch, saturated to the representable range
    /// (±9,223,372,036,854 s): `Instant(seconds: .max)` is `Instant(microseconds: .max)`, never a
    /// wrapped negative instant. Use `init?(exactlySeconds:)` where overflow must be reported.
    public init(seconds: Int64) {
        self.microseconds = Instant.saturating(seconds.multipliedReportingOverflow(by: 1_000_000),
                                               positive: seconds >= 0)
    }

    /// An instant a whole number of seconds after the epoch; nil when it is not representable.
    public init?(exactlySeconds seconds: Int64) {
        let (value, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return nil }
        self.microseconds = value
    }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    public var seconds: Int64 { floorDiv(microseconds, 1_000_000) }

    /// The microsecond within the second, 0...999_999.
    public var microsecondOfSecond: Int64 { floorMod(microseconds, 1_000_000) }

    public static func < (a: Instant, b: Instant) -> Bool { a.microseconds < b.microseconds }

    /// This instant moved by `delta` microseconds, saturated at the ends of `Int64` (never traps).
    public func adding(microseconds delta: Int64) -> Instant {
        Instant(microseconds: Instant.saturating(microseconds.addingReportingOverflow(delta), positive: delta >= 0))
    }

    /// This instant moved by `delta` seconds, saturated at the ends of `Int64` (never traps).
    public func adding(seconds delta: Int64) -> Instant {
        adding(microseconds: Instant.saturating(delta.multipliedReportingOverflow(by: 1_000_000), positive: delta >= 0))
    }

    /// This instant moved by `delta` microseconds; nil when the result is not representable.
    public func checkedAdding(microseconds delta: Int64) -> Instant? {
        let (value, overflow) = microseconds.addingReportingOverflow(delta)
        return overflow ? nil : Instant(microseconds: value)
    }

    /// The instants schedd accepts from outside: 0001-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59.999999Z, the years where calendar math is defined (four-digit years, as
    /// RFC 3339 writes them). Far inside `Int64`, so adding a span below 100 years to a supported
    /// instant never overflows.
    public static let supportedRange =
        Instant(microseconds: -62_135_596_800_000_000)...Instant(microseconds: 253_402_300_799_999_999)

    /// `supportedRange` as errors name it: `0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z`.
    public static var supportedRangeDescription: String {
        "\(supportedRange.lowerBound.rfc3339) … \(supportedRange.upperBound.rfc3339)"
    }

    /// Whether this instant lies in `supportedRange`.
    public var isSupported: Bool { Instant.supportedRange.contains(self) }

    /// The value of an overflow-reporting operation, or the `Int64` end it ran past.
    @inline(__always)
    static func saturating(_ result: (partialValue: Int64, overflow: Bool), positive: Bool) -> Int64 {
        result.overflow ? (positive ? Int64.max : Int64.min) : result.partialValue
    }

    /// RFC 3339 in UTC with `Z`; fractional seconds only when non-zero, trailing zeros trimmed.
    /// `Instant(seconds: 0).rfc3339` is `1970-01-01T00:00:00Z`.
    public var rfc3339: String {
        CivilDateTime(instant: self, offsetSeconds: 0).iso8601(withOffset: 0, utcDesignator: true)
    }

    /// `rfc3339`'s ASCII bytes appended to `out` (no string made). O(1).
    public func appendRFC3339(to out: inout [UInt8]) {
        CivilDateTime(instant: self, offsetSeconds: 0).appendISO8601(withOffset: 0, utcDesignator: true, to: &out)
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
