import SchedCalendar
import Scheduler

/// Parses `YYYY-MM-DDTHH:MM[:SS[.f]]` (a space may stand for `T`) with an optional `Z` or `±HH:MM`:
/// a floating wall time without an offset, a fixed instant with one; nil when malformed.
public func parseTimeText(_ text: String) -> OneShotTime? {
    guard let parsed = try? ISODateTime(parsing: text, allowOffset: true, allowSpaceSeparator: true) else { return nil }
    if let offset = parsed.offsetSeconds, let instant = parsed.instant { return .fixed(instant, offsetSeconds: offset) }
    return .floating(parsed.wall, zone: nil)
}

/// Reads a time argument (`--base-time`, `--fake-clock`, `clock set`): RFC 3339 with `Z` or an
/// offset is that instant; a wall time without one is resolved in `zone` (gap → the offset before
/// it, fold → the first occurrence, CONTRACT §2).
public func instant(fromTimeText text: String, in zone: TimeZoneRules) -> Instant? {
    switch parseTimeText(text) {
    case .fixed(let instant, _)?: return instant
    case .floating(let civil, _)?: return zone.resolve(civil).instant
    case nil: return nil
    }
}
