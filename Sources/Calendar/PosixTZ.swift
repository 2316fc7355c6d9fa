/// A POSIX TZ rule (`EST5EDT,M3.2.0,M11.1.0`), as in the `TZ` variable and the TZif v2+ footer.
///
/// Grammar (POSIX.1-2017 §8.3, with the RFC 8536 §3.3.1 extensions of TZif v3):
///
/// | part | form | meaning |
/// |---|---|---|
/// | name | `EST` (≥ 3 letters) or `<+0530>` (letters, digits, `+`, `-`) | abbreviation |
/// | offset | `[+-]hh[:mm[:ss]]`, hh 0…24 | time to *add* to local time to get UTC (`EST5` = UTC−5) |
/// | dst offset | optional; default one hour ahead of standard time | |
/// | rule | `,start[/time],end[/time]` | when DST starts and ends, in local time |
/// | date | `Jn` (1…365, Feb 29 never counted), `n` (0…365, counted), `Mm.w.d` (month, week 1…5 where 5 = last, weekday 0 = Sunday) | |
/// | time | `[+-]hh[:mm[:ss]]`, hh −167…167 (v3); default `02:00:00` | local time of the change |
///
/// A DST name without a rule gets the US rule `M3.2.0,M11.1.0` (glibc's built-in default).
/// Parsing is O(length of the string) and never traps.
struct PosixTZ: Sendable, Hashable {
    /// Standard time.
    var std: ZoneOffset
    /// Daylight-saving time and its rule; nil for a fixed offset.
    var dst: DST?

    struct DST: Sendable, Hashable {
        var offset: ZoneOffset
        var start: DateRule
        /// Seconds after local midnight (standard time) of `start`; may be negative or ≥ 24 h.
        var startTime: Int
        var end: DateRule
        /// Seconds after local midnight (daylight time) of `end`.
        var endTime: Int
    }

    enum DateRule: Sendable, Hashable {
        /// `Jn`: day 1…365, February 29 is never counted.
        case julian(Int)
        /// `n`: zero-based day 0…365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1…5, 5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)

        /// Days since 1970-01-01 of this rule's date in `year`.
        func day(in year: Int) -> Int64 {
            let jan1 = daysFromCivil(year, 1, 1)
            switch self {
            case .julian(let n):
                return jan1 + Int64(n - 1) + (isLeapYear(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return jan1 + Int64(n)
            case .monthWeekDay(let month, let week, let weekday):
                let first = daysFromCivil(year, month, 1)
                let firstWeekday = Int(floorMod(first + 4, 7))  // 1970-01-01 was a Thursday (4)
                var day = first + Int64((weekday - firstWeekday + 7) % 7 + (week - 1) * 7)
                let last = first + Int64(daysInMonth(year, month)) - 1
                while day > last { day -= 7 }  // week 5 = the last such weekday
                return day
            }
        }
    }

    /// One change of offset produced by the rule: at `instant` (seconds), `offset` takes effect.
    struct Change {
        var instant: Int64
        var offset: ZoneOffset
    }

    /// The two changes of `year` (DST start and end), ordered by instant; nil without DST.
    /// Allocation-free: this runs on every footer-range query.
    func changes(in year: Int) -> (first: Change, second: Change)? {
        guard let dst else { return nil }
        let start = dst.start.day(in: year) * 86_400 + Int64(dst.startTime) - Int64(std.utcOffsetSeconds)
        let end = dst.end.day(in: year) * 86_400 + Int64(dst.endTime) - Int64(dst.offset.utcOffsetSeconds)
        let a = Change(instant: start, offset: dst.offset), b = Change(instant: end, offset: std)
        return start <= end ? (a, b) : (b, a)
    }

    /// The offset in force at `seconds` (POSIX seconds). O(1); see `isDST(atSeconds:)`.
    func offset(atSeconds seconds: Int64) -> ZoneOffset {
        guard let dst else { return std }
        return isDST(atSeconds: seconds) ? dst.offset : std
    }

    /// Seconds east of UTC at `seconds`: `offset(atSeconds:)` without copying abbreviations.
    func utcOffset(atSeconds seconds: Int64) -> Int {
        guard let dst else { return std.utcOffsetSeconds }
        return isDST(atSeconds: seconds) ? dst.offset.utcOffsetSeconds : std.utcOffsetSeconds
    }

    /// Whether daylight time is in force at `seconds`, exactly as glibc decides it (`__tz_compute`
    /// in glibc's time/tzset.c), so schedd agrees with `date` on the same TZ string: only the two
    /// changes of the instant's UTC year count. With start ≤ end, DST is `start ≤ t < end`;
    /// otherwise (southern hemisphere) DST is `t < end || t ≥ start`. O(1), allocation-free.
    ///
    /// For the rules of real zones this is the same as "the latest change at or before t wins".
    /// It differs only for rules whose changes spill across a UTC new year (all-year DST such as
    /// `EST5EDT4,0/0,J365/25`, or an end more than a day past 31 December): there glibc — and so
    /// schedd — shows standard time until the year's first change.
    ///
    /// Instants beyond ±2^52 s (±142 million years; reachable only through corrupt TZif data) are
    /// clamped to that bound so that the day arithmetic can never overflow.
    func isDST(atSeconds seconds: Int64) -> Bool {
        guard let dst else { return false }
        let limit: Int64 = 1 << 52
        let t = min(max(seconds, -limit), limit)
        let year = civilFromDays(floorDiv(t, 86_400)).year
        let start = dst.start.day(in: year) * 86_400 + Int64(dst.startTime) - Int64(std.utcOffsetSeconds)
        let end = dst.end.day(in: year) * 86_400 + Int64(dst.endTime) - Int64(dst.offset.utcOffsetSeconds)
        return start <= end ? (start <= t && t < end) : (t < end || start <= t)
    }
}
