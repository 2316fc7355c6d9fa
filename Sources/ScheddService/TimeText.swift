import SchedCalendar
import Scheduler

/// Parses `YYYY-MM-DDTHH:MM[:SS[.f]]` (a space may stand for `T`) with an optional `Z` or `±HH:MM`:
/// a floating wall time without an offset, a fixed instant with one; nil when malformed.
public func parseTimeText(_ text: String) -> OneShotTime? {
    guard let parsed = try? ISODateTime(parsing: text, allowOffset: true, allowSpaceSeparator: true) else { return nil }
    if let offset = parsed.offsetSeconds, let instant = parsed.instant { return .fixed(instant, offsetSeconds: offset) }
    return .floating(parsed.wall, zone: nil)
}

/// Reads an RFC 3339 time argument: with `Z` or an offset it is that instant; a wall time without
/// one is resolved in `zone` (gap → the offset before it, fold → the first occurrence, CONTRACT §2).
public func instant(fromTimeText text: String, in zone: TimeZoneRules) -> Instant? {
    switch parseTimeText(text) {
    case .fixed(let instant, _)?: return instant
    case .floating(let civil, _)?: return zone.resolve(civil).instant
    case nil: return nil
    }
}
