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

    /// Whether daylight time is in force at `seconds`. O(1): looks at the changes of at most three
    /// years around it — start/end times may lie up to ±167 h from their date, so a neighbouring
    /// year's change can be the latest one at or before `seconds`.
    ///
    /// Instants beyond ±2^52 s (±142 million years; reachable only through corrupt TZif data) are
    /// clamped to that bound so that the day arithmetic can never overflow.
    func isDST(atSeconds seconds: Int64) -> Bool {
        guard let dst else { return false }
        let limit: Int64 = 1 << 52
        let year = civilFromDays(floorDiv(min(max(seconds, -limit), limit), 86_400)).year
        // Changes ascend from year to year (a year's two changes are months apart), so the first
        // year, going backwards, with a change at or before `seconds` holds the latest such change.
        for y in stride(from: year + 1, through: year - 1, by: -1) {
            let start = dst.start.day(in: y) * 86_400 + Int64(dst.startTime) - Int64(std.utcOffsetSeconds)
            let end = dst.end.day(in: y) * 86_400 + Int64(dst.endTime) - Int64(dst.offset.utcOffsetSeconds)
            // Same order as `changes(in:)`: the later change of the year decides first.
            if start <= end {
                if end <= seconds { return false }
                if start <= seconds { return true }
            } else {
                if start <= seconds { return true }
                if end <= seconds { return false }
            }
        }
        // Unreachable for valid rules (year − 1 always has a change before `seconds`).
        return false
    }
}
