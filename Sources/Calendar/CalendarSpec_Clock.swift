/// C's `struct tm` as systemd's elapse search uses it: fields may be out of range until normalized.
///
/// `month` is 0-based (`tm_mon`), `year` is the full year (not `tm_year`), `isDST` is `tm_isdst`
/// (-1 = unknown, 0, 1).
struct BrokenDownTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var isDST: Int

    /// Seconds since the epoch of these fields read as UTC, carrying overflow like `timegm`.
    @inline(__always) func localSeconds(second s: Int) -> Int64 {
        let y = year + Int(floorDiv(Int64(month), 12))
        let m = Int(floorMod(Int64(month), 12)) + 1
        let days = daysFromCivil(y, m, 1) + Int64(day - 1)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + s)
    }

    /// The fields of `localSeconds` (a UTC-read wall clock), with the given DST flag.
    @inline(__always) init(localSeconds: Int64, isDST: Int) {
        let days = floorDiv(localSeconds, 86_400)
        let sod = Int(localSeconds - days * 86_400)
        let (y, m, d) = civilFromDays(days)
        self.init(year: y, month: m - 1, day: d, hour: sod / 3600, minute: sod / 60 % 60, second: sod % 60,
                  isDST: isDST)
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, isDST: Int) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.isDST = isDST
    }

    /// Whether every field is in its range (so normalizing the wall time cannot change it), from 1970 on.
    @inline(__always) var isInRange: Bool {
        month >= 0 && month <= 11 && day >= 1 && day <= 28 + (day > 28 ? daysInMonth(year, month + 1) - 28 : 0)
            && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59
            && year >= 1970
    }

    /// 0 = Monday … 6 = Sunday, of the (normalized) date.
    var weekdayFromMonday: Int {
        Int(floorMod(daysFromCivil(year, month + 1, day) + 3, 7))
    }
}

/// The C library's wall clock for one zone, as systemd drives it: `localtime_r` and glibc 2.36's
/// `mktime` (or `gmtime_r`/`timegm` for UTC), written over `TimeZoneRules`.
///
/// glibc's `mktime` keeps one hidden piece of state, the offset its last call found
/// (`localtime_offset`), and uses it as the first guess; it decides which instant a folded wall time
/// means and how a wall time in a gap is moved. `guess` is that state: it is seeded from the offset of
/// the search's start instant, which is what glibc holds after systemd's first `mktime` of the search.
///
/// When `honorsDSTHint` is false the `tm_isdst` hint is ignored (treated as -1); that removes the
/// only cause of systemd's "Infinite loop in calendar calculation" and gives the correct answer.
struct WallClock {
    /// The zone; nil for UTC (then `timegm`/`gmtime_r` arithmetic).
    let zone: TimeZoneRules?
    let isUTC: Bool
    let honorsDSTHint: Bool
    var guess: Int = 0
    /// The last offset span looked up (most lookups of one search fall in it).
    private var span = OffsetSpan.empty
    /// The last date converted to a day count, and that count (the date rarely changes between calls).
    private var cachedDate = (year: Int.min, month: 0, day: 0)
    private var cachedDays: Int64 = 0

    init(zone: TimeZoneRules?, honorsDSTHint: Bool) {
        self.zone = zone
        self.isUTC = zone == nil
        self.honorsDSTHint = honorsDSTHint
    }

    /// The offset (seconds east of UTC) and DST flag at `t`; the zone is consulted only off the span.
    @inline(__always) private mutating func offset(at t: Int64) -> (utc: Int, isDST: Bool) {
        if !span.contains(t), let zone { span = zone.offsetSpan(containing: t) }
        return (span.utcOffset, span.isDST)
    }

    /// `tm.localSeconds(second:)`, remembering the day count of the last in-range date.
    @inline(__always) private mutating func localSeconds(_ tm: BrokenDownTime, second: Int) -> Int64 {
        guard tm.month >= 0 && tm.month <= 11 && tm.day >= 1 else { return tm.localSeconds(second: second) }
        if cachedDate != (tm.year, tm.month, tm.day) {
            cachedDate = (tm.year, tm.month, tm.day)
            cachedDays = daysFromCivil(tm.year, tm.month + 1, 1) + Int64(tm.day - 1)
        }
        return cachedDays * 86_400 + Int64(tm.hour * 3600 + tm.minute * 60 + second)
    }

    /// `localtime_r(t)`: the wall clock at `t` seconds, with its DST flag.
    mutating func breakDown(_ t: Int64) -> BrokenDownTime {
        if isUTC { return BrokenDownTime(localSeconds: t, isDST: 0) }
        let o = offset(at: t)
        return BrokenDownTime(localSeconds: t + Int64(o.utc), isDST: o.isDST ? 1 : 0)
    }

    /// The UTC offset in force at `t` (the search seeds `guess` with it).
    mutating func utcOffset(at t: Int64) -> Int {
        isUTC ? 0 : offset(at: t).utc
    }

    /// `mktime(tm)` (or `timegm`): the instant of `tm`, normalizing `tm` to that instant's wall clock.
    /// Returns nil (leaving `tm` alone) where glibc returns -1.
    mutating func normalize(_ tm: inout BrokenDownTime) -> Int64? {
        let inRange = tm.isInRange
        if isUTC {
            let t = localSeconds(tm, second: tm.second)
            if inRange { tm.isDST = 0 } else { tm = BrokenDownTime(localSeconds: t, isDST: 0) }
            return t
        }
        let hint = honorsDSTHint ? tm.isDST : -1
        if inRange {
            // glibc's first probe, `wall - guess`, lands where the guessed offset is in force with an
            // acceptable DST flag: that probe is the answer and nothing changes (the common case).
            let wall = localSeconds(tm, second: tm.second)
            let t = wall - Int64(guess)
            if span.contains(t) && span.utcOffset == guess && (hint < 0 || (hint != 0) == span.isDST) {
                tm.isDST = span.isDST ? 1 : 0
                return t
            }
        }
        // glibc probes with the seconds clamped to 0...59 (leap seconds) and adds the rest afterwards.
        let requestedSecond = tm.second
        let second = min(max(requestedSecond, 0), 59)
        let wall = localSeconds(tm, second: second)
        var t = wall - Int64(guess)
        var t1 = t, t2 = t
        var previousWasDST = false
        var probesLeft = 6
        var offset = self.offset(at: t)
        search: while true {
            let dt = wall - (t + Int64(offset.utc))
            if dt == 0 {
                if hint >= 0 && (hint != 0) != offset.isDST {
                    // Right wall time, wrong DST flag: borrow the offset of a neighbour with the right flag.
                    guard let found = neighbour(of: t, wall: wall, wantDST: hint != 0) else { return nil }
                    t = found
                    offset = self.offset(at: t)
                }
                break search
            }
            // Oscillating around a gap: settle on one side, preferring the DST side when no hint is given.
            if t == t1 && t != t2
                && (hint < 0 ? (!previousWasDST || offset.isDST) : (hint != 0) != offset.isDST) {
                break search
            }
            probesLeft -= 1
            if probesLeft == 0 { return nil }
            t1 = t2; t2 = t; t += dt; previousWasDST = offset.isDST
            offset = self.offset(at: t)
        }
        guess = Int(wall - t)
        if requestedSecond != second {
            t += Int64(requestedSecond - second)
            offset = self.offset(at: t)
        }
        if inRange && t + Int64(offset.utc) == wall {
            tm.isDST = offset.isDST ? 1 : 0   // unchanged wall time: skip the calendar arithmetic
        } else {
            tm = BrokenDownTime(localSeconds: t + Int64(offset.utc), isDST: offset.isDST ? 1 : 0)
        }
        return t
    }

    /// glibc's probe for an instant with the wanted DST flag, one stride (about a week) at a time up to
    /// about 8.5 years either way; extrapolates `wall` with that instant's offset.
    private mutating func neighbour(of t: Int64, wall: Int64, wantDST: Bool) -> Int64? {
        let stride: Int64 = 601_200
        let bound: Int64 = 536_454_000 / 2 + stride
        var delta = stride
        while delta < bound {
            for direction: Int64 in [-1, 1] {
                let probe = t + delta * direction
                let o = offset(at: probe)
                if o.isDST == wantDST { return probe + (wall - (probe + Int64(o.utc))) }
            }
            delta += stride
        }
        return nil
    }
}
