/// The UTC offset in force at one instant in one zone.
public struct ZoneOffset: Hashable, Sendable {
    /// Seconds east of UTC (New York winter: -18000).
    public var utcOffsetSeconds: Int
    /// Whether this is daylight-saving time (TZif `isdst`; Europe/Dublin's winter time is DST).
    public var isDST: Bool
    /// The abbreviation (`EST`, `CEST`, `+0530`…).
    public var abbreviation: String

    public init(utcOffsetSeconds: Int, isDST: Bool, abbreviation: String) {
        self.utcOffsetSeconds = utcOffsetSeconds; self.isDST = isDST; self.abbreviation = abbreviation
    }
}

/// How a wall-clock time maps onto the time line in one zone.
public enum WallTimeKind: String, Sendable, Hashable {
    /// The wall time occurs exactly once.
    case unique
    /// The wall time does not exist (a DST gap / spring-forward, or a skipped day).
    case gap
    /// The wall time occurs twice (DST fold / fall-back).
    case fold
}

/// The result of resolving a wall-clock time in a zone (RFC 5545 §3.3.5 rules, CONTRACT §2).
///
/// - unique: `instant` is the only instant; `offsetSeconds` its offset.
/// - gap: `instant` applies the offset in force *before* the gap: 2026-03-08 02:30 in New York
///   is 07:30Z (= 03:30 EDT), with `offsetSeconds` -18000 (EST). `laterInstant` applies the offset
///   after the gap (06:30Z).
/// - fold: `instant` is the first occurrence (earlier instant, offset before the transition);
///   `laterInstant` the second.
public struct WallResolution: Hashable, Sendable {
    public var kind: WallTimeKind
    public var instant: Instant
    /// The UTC offset used to compute `instant`.
    public var offsetSeconds: Int
    /// The other candidate for gaps and folds; nil when unique.
    public var laterInstant: Instant?

    public init(kind: WallTimeKind, instant: Instant, offsetSeconds: Int, laterInstant: Instant?) {
        self.kind = kind; self.instant = instant; self.offsetSeconds = offsetSeconds; self.laterInstant = laterInstant
    }
}
