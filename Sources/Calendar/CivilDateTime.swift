/// A proleptic-Gregorian date and wall-clock time with no zone attached ("2026-03-08 02:30").
///
/// Fields are not validated on construction; use `isValid` or `CivilDateTime.parse`.
/// Day arithmetic uses Howard Hinnant's `days_from_civil` algorithm: O(1), exact for all `Int64`
/// years that do not overflow.
public struct CivilDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int       // 1...12
    public var day: Int         // 1...31
    public var hour: Int        // 0...23
    public var minute: Int      // 0...59
    public var second: Int      // 0...59
    public var microsecond: Int // 0...999_999

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                microsecond: Int = 0) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.microsecond = microsecond
    }

    /// The wall-clock reading of `instant` at a UTC offset of `offsetSeconds`.
    /// Computed in whole seconds, so every `Instant` (even `Int64.max` microseconds) and any offset
    /// within ±2^31 s converts without overflow.
    public init(instant: Instant, offsetSeconds: Int) {
        let secs = instant.seconds + Int64(offsetSeconds)
        let days = floorDiv(secs, 86_400)
        let sod = Int(secs - days * 86_400)
        let (y, m, d) = civilFromDays(days)
        self.init(year: y, month: m, day: d, hour: sod / 3600, minute: sod / 60 % 60, second: sod % 60,
                  microsecond: Int(instant.microsecondOfSecond))
    }

    /// Days since 1970-01-01 of the date part.
    public var daysSinceEpoch: Int64 { daysFromCivil(year, month, day) }

    /// Seconds since the epoch if this wall time were UTC (the "local seconds" of the time line
    /// shifted by the offset). Microseconds excluded.
    public var localSeconds: Int64 {
        daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The instant this wall time denotes at a fixed UTC offset.
    /// Saturates at the ends of `Instant`'s range for years far outside 1–9999 (never traps).
    public func instant(offsetSeconds: Int) -> Instant {
        Instant(seconds: localSeconds - Int64(offsetSeconds)).adding(microseconds: Int64(microsecond))
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var isoWeekday: Int { Int(floorMod(daysSinceEpoch + 3, 7)) + 1 }

    /// Whether every field is in range for its month and year (24:00 and leap seconds are not).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= daysInMonth(year, month)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
            && (0...999_999).contains(microsecond)
    }

    public static func < (a: CivilDateTime, b: CivilDateTime) -> Bool {
        let l = (a.year, a.month, a.day, a.hour, a.minute, a.second)
        let r = (b.year, b.month, b.day, b.hour, b.minute, b.second)
        return l != r ? l < r : a.microsecond < b.microsecond
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]` followed by `Z` (when `utcDesignator` and offset 0) or `±HH:MM`.
    public func iso8601(withOffset offsetSeconds: Int?, utcDesignator: Bool = false) -> String {
        // Written as bytes into one buffer (the string concatenation it replaces cost ~7,700 instructions
        // per instant, a Push reply formats one: BENCHMARKS.md §3b).
        var s: [UInt8] = []
        s.reserveCapacity(40)
        appendISO8601(withOffset: offsetSeconds, utcDesignator: utcDesignator, to: &s)
        return String(decoding: s, as: UTF8.self)
    }

    /// `iso8601(withOffset:utcDesignator:)`'s ASCII bytes appended to `s` (no string made: a reply writer
    /// puts them straight into its JSON, they need no escape).
    public func appendISO8601(withOffset offsetSeconds: Int?, utcDesignator: Bool = false, to s: inout [UInt8]) {
        appendPadded(year, 4, to: &s); s.append(UInt8(ascii: "-"))
        appendPadded(month, 2, to: &s); s.append(UInt8(ascii: "-"))
        appendPadded(day, 2, to: &s); s.append(UInt8(ascii: "T"))
        appendPadded(hour, 2, to: &s); s.append(UInt8(ascii: ":"))
        appendPadded(minute, 2, to: &s); s.append(UInt8(ascii: ":"))
        appendPadded(second, 2, to: &s)
        if microsecond != 0 {
            s.append(UInt8(ascii: "."))
            let start = s.count
            appendPadded(microsecond, 6, to: &s)
            while s.count > start + 1, s.last == UInt8(ascii: "0") { s.removeLast() }
        }
        if let off = offsetSeconds {
            if off == 0 && utcDesignator {
                s.append(UInt8(ascii: "Z"))
            } else {
                let a = abs(off)
                s.append(UInt8(ascii: off < 0 ? "-" : "+"))
                appendPadded(a / 3600, 2, to: &s); s.append(UInt8(ascii: ":"))
                appendPadded(a / 60 % 60, 2, to: &s)
                if a % 60 != 0 { s.append(UInt8(ascii: ":")); appendPadded(a % 60, 2, to: &s) }
            }
        }
    }

    public var description: String { iso8601(withOffset: nil) }
}

/// `pad(v, width)`'s text appended as ASCII bytes: `-` for a negative `v`, then its digits with leading
/// zeros up to `width`.
func appendPadded(_ v: Int, _ width: Int, to out: inout [UInt8]) {
    if v < 0 { out.append(UInt8(ascii: "-")) }
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var rest = v.magnitude
    withUnsafeMutableBytes(of: &digits) { buffer in
        repeat {
            buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            count += 1
        } while rest > 0
        for _ in count..<max(count, width) { out.append(UInt8(ascii: "0")) }
        for i in (0..<count).reversed() { out.append(buffer[i]) }
    }
}

@usableFromInline func pad(_ v: Int, _ width: Int) -> String {
    let digits = String(abs(v))
    let body = digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    return v < 0 ? "-" + body : body
}

/// Whether `year` is a Gregorian leap year.
@inlinable public func isLeapYear(_ year: Int) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1...12) of `year`; 0 for an out-of-range month.
@inlinable public func daysInMonth(_ year: Int, _ month: Int) -> Int {
    switch month {
    case 1, 3, 5, 7, 8, 10, 12: return 31
    case 4, 6, 9, 11: return 30
    case 2: return isLeapYear(year) ? 29 : 28
    default: return 0
    }
}

/// Days since 1970-01-01 of a proleptic-Gregorian date (Hinnant's `days_from_civil`).
@inlinable public func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = floorDiv(y, 400)
    let yoe = y - era * 400
    let mp = Int64((month + 9) % 12)
    let doy = (153 * mp + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
@inlinable public func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = floorDiv(z, 146_097)
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    return (Int(y), Int(m), Int(d))
}
