/// One value of a chain: `start`, or `start..stop`, or `start/repeat`, or `start..stop/repeat`.
///
/// `stop` is -1 when absent; `repeat` is 0 when absent (a range alone has repeat 1 unit). Seconds
/// are stored in microseconds (`1.5` → 1_500_000). Mirrors systemd's `CalendarComponent`.
struct CalendarComponent: Hashable, Sendable, Comparable {
    var start: Int
    var stop: Int
    var `repeat`: Int
    /// Where the value starts in the text, for messages; not part of the value.
    var offset = 0

    init(start: Int, stop: Int, repeat: Int, offset: Int = 0) {
        self.start = start; self.stop = stop; self.repeat = `repeat`; self.offset = offset
    }

    static func == (a: CalendarComponent, b: CalendarComponent) -> Bool {
        (a.start, a.stop, a.repeat) == (b.start, b.stop, b.repeat)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(start); hasher.combine(stop); hasher.combine(`repeat`)
    }

    static func < (a: CalendarComponent, b: CalendarComponent) -> Bool {
        (a.start, a.stop, a.repeat) < (b.start, b.stop, b.repeat)
    }
}

/// A chain of values for one field; nil means `*` (every value).
typealias CalendarChain = [CalendarComponent]?

/// The fields of a calendar expression, before and after systemd's normalization.
struct CalendarFields: Hashable, Sendable {
    /// Bit 0 = Monday … bit 6 = Sunday; -1 (after normalization) when every day matches.
    var weekdayBits = 0
    var year: CalendarChain = nil
    var month: CalendarChain = nil
    var day: CalendarChain = nil
    var hour: CalendarChain = nil
    var minute: CalendarChain = nil
    /// Seconds, in microseconds.
    var microsecond: CalendarChain = nil
    /// `~`: days are counted back from the end of the month (`~1` is the last day).
    var endOfMonth = false
    /// Pinned to UTC (a ` UTC` suffix, or `@EPOCH`).
    var utc = false

    static let yearRange = 1970...2199
    static let usecPerSecond = 1_000_000

    /// systemd's `calendar_spec_normalize`: two-digit years, weekday bits, then each chain sorted,
    /// de-duplicated, with ranges trimmed to a multiple of their repeat.
    mutating func normalize() {
        if weekdayBits <= 0 || weekdayBits >= 127 { weekdayBits = -1 }
        if endOfMonth && day == nil { endOfMonth = false }
        if var y = year {
            for i in y.indices {
                y[i].start = Self.fixYear(y[i].start)
                y[i].stop = Self.fixYear(y[i].stop)
            }
            year = y
        }
        Self.normalize(&year)
        Self.normalize(&month)
        Self.normalize(&day)
        Self.normalize(&hour)
        Self.normalize(&minute)
        Self.normalize(&microsecond)
    }

    /// 12 → 2012, 89 → 1989; other values (and -1, "no stop") unchanged.
    private static func fixYear(_ v: Int) -> Int {
        if v >= 0 && v < 70 { return v + 2000 }
        if v >= 70 && v < 100 { return v + 1900 }
        return v
    }

    private static func normalize(_ chain: inout CalendarChain) {
        guard var c = chain else { return }
        for i in c.indices {
            if c[i].stop > c[i].start && c[i].repeat > 0 {
                c[i].stop -= (c[i].stop - c[i].start) % c[i].repeat
            }
            // A repeat that cannot fire twice, or a one-value range, is a plain value.
            if (c[i].stop > c[i].start && c[i].repeat > 0 && c[i].start + c[i].repeat > c[i].stop)
                || c[i].start == c[i].stop {
                c[i].repeat = 0
                c[i].stop = -1
            }
        }
        c.sort()
        var unique: [CalendarComponent] = []
        unique.reserveCapacity(c.count)
        for v in c where unique.last != v { unique.append(v) }
        chain = unique
    }

    /// systemd's `calendar_spec_valid`, after normalization; nil when valid, else what is wrong.
    func validationProblem() -> String? {
        if let p = Self.problem(year, "year", Self.yearRange, endOfMonth: false) { return p }
        if let p = Self.problem(month, "month", 1...12, endOfMonth: false) { return p }
        if let p = Self.problem(day, endOfMonth ? "day from the end of the month" : "day", 1...31,
                                endOfMonth: endOfMonth) { return p }
        if let p = Self.problem(hour, "hour", 0...23, endOfMonth: false) { return p }
        if let p = Self.problem(minute, "minute", 0...59, endOfMonth: false) { return p }
        if let p = Self.problem(microsecond, "second", 0...(60 * Self.usecPerSecond - 1), endOfMonth: false,
                                usec: true) { return p }
        return nil
    }

    private static func problem(_ chain: CalendarChain, _ name: String, _ range: ClosedRange<Int>,
                                endOfMonth: Bool, usec: Bool = false) -> String? {
        guard let chain else { return nil }
        let from = range.lowerBound
        let to = endOfMonth ? range.upperBound - 3 : range.upperBound   // at most 28 days back
        func show(_ v: Int) -> String { usec ? formatSeconds(v) : String(v) }
        let shownRange = "\(show(from))…\(show(to))"
        for c in chain {
            if let p = problem(c, name, from: from, to: to, endOfMonth: endOfMonth, show: show, shownRange: shownRange) {
                return "\(p) at offset \(c.offset)"
            }
        }
        return nil
    }


    /// What is wrong with one value of a chain over `from...to`, or nil.
    private static func problem(_ c: CalendarComponent, _ name: String, from: Int, to: Int, endOfMonth: Bool,
                                show: (Int) -> String, shownRange: String) -> String? {
        if c.start < from || c.start > to { return "\(name) \(show(c.start)) is out of range \(shownRange)" }
        if c.repeat > to - from { return "\(name) repetition /\(show(c.repeat)) is too large" }
        if c.stop >= 0 {
            if c.stop < from || c.stop > to { return "\(name) \(show(c.stop)) is out of range \(shownRange)" }
            if c.start + c.repeat > c.stop {
                return "\(name) range \(show(c.start))..\(show(c.stop)) is empty or backwards"
            }
        } else if endOfMonth && c.start - c.repeat < from {
            return "\(name) \(show(c.start))/\(show(c.repeat)) never repeats"
        } else if !endOfMonth && c.start + c.repeat > to {
            return "\(name) \(show(c.start))/\(show(c.repeat)) never repeats within \(shownRange)"
        }
        return nil
    }

    /// `1500000` → `1.5`, `2000000` → `2`.
    private static func formatSeconds(_ usec: Int) -> String {
        let frac = usec % usecPerSecond
        if frac == 0 { return String(usec / usecPerSecond) }
        var f = pad(frac, 6)
        while f.hasSuffix("0") { f.removeLast() }
        return "\(usec / usecPerSecond).\(f)"
    }
}
