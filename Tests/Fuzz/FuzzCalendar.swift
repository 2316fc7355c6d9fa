// libFuzzer harness for the calendar-expression parser and next-elapse search (scripts/fuzz.sh calendar).
//
// Checks, for every input (read as UTF-8, invalid sequences replaced):
// - `CalendarSpec(parsing:, zones: ZoneDatabase.shared)` returns or throws; it never traps, hangs or leaks.
// - Round trip: an accepted spec's `normalized` form parses again to the same normalized form.
// - `nextElapse(after:in:)` terminates in UTC, America/New_York and Europe/Dublin from bases on both
//   sides of the 2026 US and EU transitions and from the edges of `Int64` and of the supported range
//   (never a trap), and any elapse is strictly after its base; following it again gives a
//   strictly later elapse; and in UTC the elapse after (elapse − 1 µs) is the elapse itself.
import SchedCalendar
import SystemZones

/// UTC (the arithmetic fast path), New York (ordinary DST) and Dublin (negative DST: its TZif marks
/// winter time as DST, so every DST-flag heuristic runs the other way round).
let zones: [TimeZoneRules] = [TimeZoneRules.utc] + ["America/New_York", "Europe/Dublin"].map { name in
    do throws(ZoneError) { return try ZoneDatabase.shared.zone(named: name) } catch {
        fatalError("fuzz harness needs \(name) in the zoneinfo database: \(error)")
    }
}

/// 2026-03-08T06:59:59Z (one second before the US spring-forward), 2026-11-01T05:30:00Z (inside the
/// US fold), 2026-03-29T00:52:00Z (eight minutes before the EU spring-forward), 2026-10-25T01:30:00Z
/// (inside the EU fold), 2024-02-28T23:59:59.999999Z (before a leap day), 1970-01-01T00:00:00Z — and
/// the edges (`edgeBases`): where `Int64` ends, where the supported range ends, where systemd's search
/// ends (2199/2200), one microsecond before the epoch.
let bases: [Instant] = [
    Instant(seconds: 1_772_953_199),
    Instant(seconds: 1_793_511_000),
    Instant(seconds: 1_774_745_520),
    Instant(seconds: 1_792_891_800),
    Instant(microseconds: 1_709_164_799_999_999),
    Instant(seconds: 0),
] + edgeBases

/// Base times at the edges: `@9223372036854.775807` (the last representable microsecond, once a trap
/// in `instant.microseconds + 1`) and its neighbour, the first, `Instant.supportedRange`'s ends and one
/// microsecond past each, the last second systemd searches (2199-12-31T23:59:59Z) and the next,
/// 1969-12-31T23:59:59.999999Z.
let edgeBases: [Instant] = [
    Instant(microseconds: .max), Instant(microseconds: .max - 1), Instant(microseconds: .min),
    Instant(microseconds: .min + 1),
    Instant.supportedRange.lowerBound, Instant.supportedRange.lowerBound.adding(microseconds: -1),
    Instant.supportedRange.upperBound, Instant.supportedRange.upperBound.adding(microseconds: 1),
    Instant(seconds: 7_258_118_399), Instant(seconds: 7_258_118_400),
    Instant(microseconds: -1),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalendar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let spec: CalendarSpec
    do throws(CalendarError) {
        spec = try CalendarSpec(parsing: text, zones: ZoneDatabase.shared)
    } catch {
        _ = error.description
        return 0
    }
    let again: CalendarSpec
    do throws(CalendarError) {
        again = try CalendarSpec(parsing: spec.normalized, zones: ZoneDatabase.shared)
    } catch {
        fatalError("normalized form does not parse: \(spec.normalized) (from \(text)): \(error)")
    }
    guard again.normalized == spec.normalized else {
        fatalError("normalized form not stable: \(spec.normalized) → \(again.normalized) (from \(text))")
    }
    for zone in zones {
        for base in bases {
            guard let elapse = spec.nextElapse(after: base, in: zone) else { continue }
            guard elapse > base else { fatalError("elapse \(elapse) not after base \(base) in \(zone): \(text)") }
            if let following = spec.nextElapse(after: elapse, in: zone), following <= elapse {
                fatalError("elapse after \(elapse) is \(following), not later, in \(zone): \(text)")
            }
            if zone === TimeZoneRules.utc {
                let redo = spec.nextElapse(after: elapse.adding(microseconds: -1), in: zone)
                guard redo == elapse else {
                    fatalError("elapse after \(elapse) − 1µs is \(String(describing: redo)) in UTC: \(text)")
                }
            }
        }
    }
    return 0
}
