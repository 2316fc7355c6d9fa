// STUB (to be replaced by the TZif implementation): fixed-offset zones only.

/// The rules of one time zone: its UTC offsets over all of time.
///
/// Immutable and `Sendable`; built once per zone per process by `ZoneDatabase`.
public final class TimeZoneRules: Sendable, CustomStringConvertible {
    /// The IANA name (`Europe/Berlin`), the POSIX TZ string, or `UTC`.
    public let name: String
    let fixedOffset: Int

    init(name: String, fixedOffset: Int) { self.name = name; self.fixedOffset = fixedOffset }

    /// Coordinated Universal Time.
    public static let utc = TimeZoneRules(name: "UTC", fixedOffset: 0)

    /// The offset in force at `instant`. O(log transitions).
    public func offset(at instant: Instant) -> ZoneOffset {
        ZoneOffset(utcOffsetSeconds: fixedOffset, isDST: false, abbreviation: name)
    }

    /// The wall-clock reading at `instant`.
    public func localDateTime(at instant: Instant) -> CivilDateTime {
        CivilDateTime(instant: instant, offsetSeconds: offset(at: instant).utcOffsetSeconds)
    }

    /// Resolves a wall-clock time: gap → offset before the gap, fold → first occurrence.
    public func resolve(_ wall: CivilDateTime) -> WallResolution {
        WallResolution(kind: .unique, instant: wall.instant(offsetSeconds: fixedOffset), offsetSeconds: fixedOffset,
                       laterInstant: nil)
    }

    public var description: String { name }
}
