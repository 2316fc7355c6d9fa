// libFuzzer harness for the TZif reader (scripts/fuzz.sh tzif).
//
// Checks, for every input:
// - `TimeZoneRules(tzif:name:)` returns or throws; it never traps, hangs or leaks.
// - For accepted bytes, at instants spread over years 1…9999: `offset(at:)` lies within
//   ±25:59:59 and `localDateTime(at:)` is a valid civil time.
// - `resolve` of wall times around 2026's transitions and elsewhere: a unique or fold resolution
//   reads back as the same wall time at its instant(s), fold instants are ascending, and a gap's
//   wall time is read back at neither candidate.
import SchedCalendar

/// Instants in seconds: 0001-01-01, 1901-12-13 (32-bit min), 1970, 2026 around both US transitions,
/// 2038-01-19 (32-bit max), 2100, 9999-12-31.
let tzifInstants: [Int64] = [
    -62_135_596_800, -2_147_483_648, -1, 0, 1_772_953_199, 1_772_953_200, 1_793_512_800,
    2_147_483_647, 4_102_444_800, 253_402_300_799,
]

/// Wall times: the 2026 US and EU transitions, a midsummer noon, and the ends of the range.
let tzifWalls: [CivilDateTime] = [
    CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30),
    CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30),
    CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30),
    CivilDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30),
    CivilDateTime(year: 2026, month: 7, day: 1, hour: 12),
    CivilDateTime(year: 1900, month: 1, day: 1),
    CivilDateTime(year: 2200, month: 6, day: 15, hour: 23, minute: 59, second: 59, microsecond: 999_999),
    CivilDateTime(year: 1, month: 1, day: 2),
    CivilDateTime(year: 9999, month: 12, day: 30),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTZif(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let rules: TimeZoneRules
    do throws(ZoneError) {
        rules = try TimeZoneRules(tzif: bytes, name: "fuzz")
    } catch {
        _ = error.description
        return 0
    }
    for seconds in tzifInstants {
        let instant = Instant(seconds: seconds)
        let offset = rules.offset(at: instant)
        guard abs(offset.utcOffsetSeconds) <= 93_599 else { fatalError("offset \(offset) out of range at \(instant)") }
        guard rules.localDateTime(at: instant).isValid else { fatalError("invalid local time at \(instant)") }
    }
    for wall in tzifWalls {
        let r = rules.resolve(wall)
        func readsBack(_ i: Instant) -> Bool { rules.localDateTime(at: i) == wall }
        switch r.kind {
        case .unique:
            guard readsBack(r.instant), r.laterInstant == nil else { fatalError("unique \(wall) → \(r)") }
        case .fold:
            guard let later = r.laterInstant, r.instant < later, readsBack(r.instant), readsBack(later) else {
                fatalError("fold \(wall) → \(r)")
            }
        case .gap:
            if readsBack(r.instant) || r.laterInstant.map(readsBack) == true { fatalError("gap \(wall) → \(r)") }
        }
        let c = rules.wallCandidates(wall)
        guard (c.first == nil) == (r.kind == .gap), c.second == r.laterInstant || r.kind == .gap else {
            fatalError("wallCandidates disagrees with resolve at \(wall): \(c) vs \(r)")
        }
    }
    return 0
}
