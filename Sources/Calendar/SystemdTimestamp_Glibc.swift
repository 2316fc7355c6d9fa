/// The `struct tm` fields systemd's timestamp parser fills in: they may be out of range (a day
/// of 0 or 32 after `yesterday`/`tomorrow`, `Feb 31`, second 60) until `mktime` carries them.
struct TimestampFields: Hashable, Sendable {
    var year: Int
    var month: Int   // 1...12
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// 0 = Sunday, as `tm_wday`.
    var weekday: Int

    init(_ civil: CivilDateTime) {
        year = civil.year; month = civil.month; day = civil.day
        hour = civil.hour; minute = civil.minute; second = civil.second
        weekday = civil.isoWeekday % 7
    }

    /// Days since 1970-01-01 of the (carried) date.
    var days: Int64 { daysFromCivil(year, month, 1) + Int64(day - 1) }

    /// The fields as `WallClock` takes them (0-based month, DST hint).
    func brokenDown(isDST: Int) -> BrokenDownTime {
        BrokenDownTime(year: year, month: month - 1, day: day, hour: hour, minute: minute, second: second, isDST: isDST)
    }

    /// glibc `strptime`'s `day_of_the_week`: the weekday of the carried date.
    mutating func recomputeWeekday() { weekday = Int(floorMod(days + 4, 7)) }

    func midnight(dayDelta: Int) -> TimestampFields {
        var copy = self
        copy.day += dayDelta
        copy.hour = 0; copy.minute = 0; copy.second = 0
        return copy
    }
}

/// The part of glibc's `strptime` (C locale) that systemd's formats use: `%y %Y %m %d %H %M %S %b`,
/// a space (any run of spaces, including none) and literal characters.
enum Strptime {
    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                                 "september", "october", "november", "december"].map { Array($0.utf8) }

    /// Parses `input` (NUL-terminated) against `format`; returns the index after what it read.
    static func parse(_ input: [UInt8], format: [UInt8], into tm: inout TimestampFields) -> Int? {
        var rp = 0
        var f = 0
        var wantWeekday = false
        func number(_ from: Int, _ to: Int, _ digits: Int) -> Int? {
            while isSpace(input[rp]) { rp += 1 }
            guard TimeSpan.isDigit(input[rp]) else { return nil }
            var value = 0
            var n = digits
            repeat {
                value = value * 10 + Int(input[rp] - 0x30)
                rp += 1
                n -= 1
            } while n > 0 && value * 10 <= to && TimeSpan.isDigit(input[rp])
            return value >= from && value <= to ? value : nil
        }
        while f < format.count {
            let c = format[f]
            if isSpace(c) {
                while isSpace(input[rp]) { rp += 1 }
                f += 1
                continue
            }
            if c != UInt8(ascii: "%") {
                guard input[rp] == c else { return nil }
                rp += 1; f += 1
                continue
            }
            let spec = format[f + 1]
            f += 2
            switch spec {
            case UInt8(ascii: "y"):
                guard let v = number(0, 99, 2) else { return nil }
                tm.year = v >= 69 ? 1900 + v : 2000 + v
                wantWeekday = true
            case UInt8(ascii: "Y"):
                guard let v = number(0, 9999, 4) else { return nil }
                tm.year = v
                wantWeekday = true
            case UInt8(ascii: "m"):
                guard let v = number(1, 12, 2) else { return nil }
                tm.month = v
                wantWeekday = true
            case UInt8(ascii: "d"):
                guard let v = number(1, 31, 2) else { return nil }
                tm.day = v
                wantWeekday = true
            case UInt8(ascii: "H"):
                guard let v = number(0, 23, 2) else { return nil }
                tm.hour = v
            case UInt8(ascii: "M"):
                guard let v = number(0, 59, 2) else { return nil }
                tm.minute = v
            case UInt8(ascii: "S"):
                guard let v = number(0, 61, 2) else { return nil }
                tm.second = v
            case UInt8(ascii: "b"):
                // The longest month name (full, else the three-letter one) that matches, any case.
                var matched: (month: Int, length: Int)?
                for (i, name) in months.enumerated() {
                    for length in [name.count, 3] where matchesIgnoringCase(input, at: rp, name.prefix(length)) {
                        if length > (matched?.length ?? 0) { matched = (i + 1, length) }
                    }
                }
                guard let matched else { return nil }
                rp += matched.length
                tm.month = matched.month
                wantWeekday = true
            default:
                return nil
            }
        }
        if wantWeekday { tm.recomputeWeekday() }
        return rp
    }

    private static func matchesIgnoringCase(_ input: [UInt8], at p: Int, _ word: ArraySlice<UInt8>) -> Bool {
        guard p + word.count < input.count else { return false }
        for (i, c) in word.enumerated() where SystemdTimestamp.lower(input[p + i]) != c { return false }
        return true
    }

    /// C's `isspace` in the C locale.
    static func isSpace(_ c: UInt8) -> Bool { TimeSpan.isCSpace(c) }
}

