/// The next-elapse search of systemd 252 (`find_next` in `src/shared/calendarspec.c`), field by field
/// from the year down to the microsecond, over a `WallClock` instead of the process's `TZ`.
///
/// Each step moves one field forward to its next matching value; when a field has none left, the next
/// larger field is incremented and the search restarts from the top. After every change the wall time
/// is normalized through the clock, so a wall time in a DST gap moves out of it (and lower fields
/// restart from zero) and a folded wall time is read once, at the offset glibc's `mktime` picks.
/// Years past 2199 (`MAX_YEAR`) end the search: that bounds impossible dates such as `*-02-31`. Any base
/// is taken (the ends of `Int64` included): the search runs inside `Instant.supportedRange` (`search`).
enum ElapseSearch {
    /// systemd's `MAX_CALENDAR_ITERATIONS`: a safety valve against searches that cycle.
    static let maxIterations = 1000
    static let usecPerSecond = 1_000_000

    /// The first elapse strictly after `instant`; `zone` nil means UTC.
    ///
    /// `guess` is glibc's `localtime_offset` when the search starts (mktime's first guess, left by the
    /// previous `mktime` of the process); nil seeds it with the offset at `instant`, which is what glibc
    /// holds when the previous search of the same spec found `instant`. On return it holds what the
    /// search's last `mktime` left. It decides which pass of a standard-time fold a wall time means.
    static func next(_ f: CalendarFields, after instant: Instant, zone: TimeZoneRules?, guess: inout Int?) -> Instant? {
        var clock = WallClock(zone: zone, honorsDSTHint: true)
        let seed = guess
        defer { guess = clock.guess }
        switch search(f, after: instant, clock: &clock, guess: seed) {
        case .found(let elapse): return elapse
        case .never: return nil
        case .cycled:
            // systemd gives up here; without the stale DST hint the same search is exact.
            var exact = WallClock(zone: zone, honorsDSTHint: false)
            let found = search(f, after: instant, clock: &exact, guess: seed)
            clock.guess = exact.guess
            if case .found(let elapse) = found { return elapse }
            return nil
        }
    }

    enum Outcome { case found(Instant), never, cycled }

    static func search(_ f: CalendarFields, after instant: Instant, clock: inout WallClock, guess: Int?) -> Outcome {
        // The search works inside `Instant.supportedRange`, so the wall-clock arithmetic below (offsets,
        // seconds × 10⁶) cannot overflow whatever the base: from its end on nothing elapses (systemd stops
        // at 2199; `@9223372036854.775807` once trapped in `microseconds + 1`), and a base before its
        // start is searched from there (every elapse found is still after the base).
        guard instant < Instant.supportedRange.upperBound else { return .never }
        let start = max(instant, Instant.supportedRange.lowerBound.adding(microseconds: -1)).microseconds + 1
        let startSecond = floorDiv(start, Int64(usecPerSecond))
        var c = clock.breakDown(startSecond)
        var usec = Int(floorMod(start, Int64(usecPerSecond)))
        clock.guess = guess ?? clock.utcOffset(at: startSecond)
        let startTime = c, startUsec = usec
        // Once a candidate lands at or before the start (mktime moved it back, as around negative DST),
        // the search keeps the DST flag mktime reports instead of resetting it (systemd PR #36897,
        // in Debian's 252.39).
        var keepDSTFlag = false

        for _ in 0..<maxIterations {
            if !clock.isUTC || !c.isInRange { _ = clock.normalize(&c) }
            if !keepDSTFlag { c.isDST = -1 }

            var year = c.year
            var r = match(f.year, &year, c, &clock, endOfMonth: false)
            c.year = year
            if r > 0 { c.month = 0; c.day = 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0 }
            if r < 0 { return .never }
            if withinBounds(&c, &clock) <= 0 { return .never }

            var month = c.month + 1
            r = match(f.month, &month, c, &clock, endOfMonth: false)
            c.month = month - 1
            if r > 0 { c.day = 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0 }
            if r >= 0 { r = withinBounds(&c, &clock) }
            if r < 0 { c.year += 1; c.month = 0; c.day = 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0; continue }
            if r == 0 { continue }

            var dayValue = c.day
            r = match(f.day, &dayValue, c, &clock, endOfMonth: f.endOfMonth)
            c.day = dayValue
            if r > 0 { c.hour = 0; c.minute = 0; c.second = 0; usec = 0 }
            if r >= 0 { r = withinBounds(&c, &clock) }
            if r < 0 { c.month += 1; c.day = 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0; continue }
            if r == 0 { continue }

            if !matchesWeekday(f.weekdayBits, c, &clock) {
                c.day += 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0
                continue
            }

            var hourValue = c.hour
            r = match(f.hour, &hourValue, c, &clock, endOfMonth: false)
            c.hour = hourValue
            if r > 0 { c.minute = 0; c.second = 0; usec = 0 }
            if r >= 0 { r = withinBounds(&c, &clock) }
            if r < 0 { c.day += 1; c.hour = 0; c.minute = 0; c.second = 0; usec = 0; continue }
            if r == 0 { continue }   // the hour may be missing (DST): retry from the normalized time

            var minuteValue = c.minute
            r = match(f.minute, &minuteValue, c, &clock, endOfMonth: false)
            c.minute = minuteValue
            if r > 0 { c.second = 0; usec = 0 }
            if r >= 0 { r = withinBounds(&c, &clock) }
            if r < 0 { c.hour += 1; c.minute = 0; c.second = 0; usec = 0; continue }
            if r == 0 { continue }

            var micro = c.second * usecPerSecond + usec
            r = match(f.microsecond, &micro, c, &clock, endOfMonth: false)
            usec = micro % usecPerSecond
            c.second = micro / usecPerSecond
            if r >= 0 { r = withinBounds(&c, &clock) }
            if r < 0 { c.minute += 1; c.second = 0; usec = 0; continue }
            if r == 0 { continue }

            if !isAfter(c, usec, startTime, startUsec) {
                // Stuck at or before the start: step an hour on and let mktime settle the DST flag.
                keepDSTFlag = true
                c.hour += 1
                continue
            }

            guard let t = clock.normalize(&c), t >= 0 else { return .never }
            return .found(Instant(microseconds: t * Int64(usecPerSecond) + Int64(usec)))
        }
        return .cycled
    }

    /// Whether wall time `a` (+ `aUsec`) is later than the start `b` (+ `bUsec`); `a` is not later when
    /// its microsecond is before `bUsec` (systemd compares `start usec` with `found usec + 1`).
    static func isAfter(_ a: BrokenDownTime, _ aUsec: Int, _ b: BrokenDownTime, _ bUsec: Int) -> Bool {
        let l = (a.year, a.month, a.day, a.hour, a.minute, a.second)
        let r = (b.year, b.month, b.day, b.hour, b.minute, b.second)
        if l != r { return l > r }
        return bUsec < aUsec + 1
    }

    /// systemd's `find_matching_component`: moves `value` to the earliest chain value ≥ it.
    /// Returns 1 when it moved, 0 when it already matched (or the chain is `*`), -1 when none is left.
    @inline(__always)
    static func match(_ chain: CalendarChain, _ value: inout Int, _ tm: BrokenDownTime,
                      _ clock: inout WallClock, endOfMonth: Bool) -> Int {
        guard let chain else { return 0 }
        var best = Int.max
        for component in chain {
            var start = component.start
            var stop = component.stop
            if endOfMonth {
                start = dayFromEnd(tm, component.start, &clock)
                stop = dayFromEnd(tm, component.stop, &clock)
                if stop > 0 { swap(&start, &stop) }
            }
            if start >= value {
                if start < best { best = start }
            } else if component.repeat > 0 {
                // Values past the field's range are left to normalization (they roll into the next unit).
                let k = start + component.repeat * ((value - start + component.repeat - 1) / component.repeat)
                if k < best && (stop < 0 || k <= stop) { best = k }
            }
        }
        if best == Int.max { return -1 }
        let moved = value != best
        value = best
        return moved ? 1 : 0
    }

    /// systemd's `find_end_of_month`: the day of `tm`'s month that is `day` days back from its end
    /// (`~1` = the last day), or -1 when that is not in this month.
    static func dayFromEnd(_ tm: BrokenDownTime, _ day: Int, _ clock: inout WallClock) -> Int {
        var t = tm
        t.month += 1
        t.day = 1 - day
        guard let secs = clock.normalize(&t), secs >= 0, t.month == tm.month else { return -1 }
        return t.day
    }

    /// systemd's `tm_within_bounds`: 1 when `tm` is a real wall time (normalizing changes nothing),
    /// 0 when normalizing moved it forward (then `tm` is the normalized time, the field below the first
    /// changed one restarted), -1 past 2199, on failure, or when normalizing would go backwards.
    static func withinBounds(_ tm: inout BrokenDownTime, _ clock: inout WallClock) -> Int {
        if tm.year > CalendarFields.yearRange.upperBound { return -1 }
        // UTC: a wall time with every field in range is its own normalization.
        if clock.isUTC && tm.isInRange { return 1 }
        var t = tm
        guard let secs = clock.normalize(&t), secs >= 0 else { return -1 }
        var cmp: Int
        if t.year != tm.year {
            cmp = t.year < tm.year ? -1 : 1; t.month = 0; t.day = 1
        } else if t.month != tm.month {
            cmp = t.month < tm.month ? -1 : 1; t.day = 1
        } else if t.day != tm.day {
            cmp = t.day < tm.day ? -1 : 1; t.hour = 0
        } else if t.hour != tm.hour {
            cmp = t.hour < tm.hour ? -1 : 1; t.minute = 0
        } else if t.minute != tm.minute {
            cmp = t.minute < tm.minute ? -1 : 1; t.second = 0
        } else {
            cmp = t.second == tm.second ? 0 : (t.second < tm.second ? -1 : 1)
        }
        if cmp < 0 { return -1 }
        if cmp > 0 { tm = t }
        return cmp == 0 ? 1 : 0
    }

    /// systemd's `matches_weekday`: the weekday of the normalized `tm` is one of `bits` (-1 = any).
    static func matchesWeekday(_ bits: Int, _ tm: BrokenDownTime, _ clock: inout WallClock) -> Bool {
        if bits < 0 || bits >= 127 { return true }
        if clock.isUTC && tm.isInRange { return bits & (1 << tm.weekdayFromMonday) != 0 }
        var t = tm
        guard let secs = clock.normalize(&t), secs >= 0 else { return false }
        return bits & (1 << t.weekdayFromMonday) != 0
    }
}
