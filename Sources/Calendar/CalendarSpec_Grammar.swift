extension CalendarParser {
    private static let dayNames: [(name: [UInt8], number: Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2),
        ("thursday", 3), ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5),
        ("sunday", 6), ("sun", 6),
    ].map { (Array($0.0.utf8), $0.1) }

    /// The weekday whose name starts at the cursor (longest name first), with its length.
    private func weekdayAtCursor() -> (number: Int, length: Int)? {
        for entry in Self.dayNames where i + entry.name.count <= s.count {
            var matches = true
            for (k, c) in entry.name.enumerated() where s[i + k] | 0x20 != c { matches = false; break }
            if matches { return (entry.number, entry.name.count) }
        }
        return nil
    }

    /// `WEEKDAYS`: names joined by `,`, `..` or `-`; absent when the text does not start with one.
    mutating func parseWeekdays() throws(CalendarParseError) {
        var rangeStart = -1
        var first = true
        while true {
            let at = i
            guard let day = weekdayAtCursor() else {
                if first { return }
                throw error("unknown weekday '\(word(at: at))'")
            }
            let after = peek(day.length)
            guard after == 0 || after == UInt8(ascii: "-") || after == UInt8(ascii: ".")
                    || after == UInt8(ascii: ",") || after == UInt8(ascii: " ") else {
                throw error("unknown weekday '\(word(at: at))'")
            }
            fields.weekdayBits |= 1 << day.number
            if rangeStart >= 0 {
                if rangeStart > day.number {
                    throw error("weekday range ends before it starts ('\(word(at: at))')", at: at)
                }
                for k in rangeStart..<day.number { fields.weekdayBits |= 1 << k }
            }
            i += day.length
            if current == 0 { return }
            if current == UInt8(ascii: " ") { skipSpaces(); return }
            if current == UInt8(ascii: ".") {
                if rangeStart >= 0 { throw error("a weekday range cannot continue with '..'") }
                if peek(1) != UInt8(ascii: ".") { throw error("expected '..' after a weekday") }
                rangeStart = day.number
                i += 2
            } else if current == UInt8(ascii: "-") {
                if rangeStart >= 0 { throw error("a weekday range cannot continue with '-'") }
                rangeStart = day.number
                i += 1
            } else if current == UInt8(ascii: ",") {
                rangeStart = -1
                i += 1
            }
            // A trailing comma is fine, an open range is not.
            if current == 0 || current == UInt8(ascii: " ") {
                if rangeStart >= 0 { throw error("weekday range has no end") }
                skipSpaces()
                return
            }
            first = false
        }
    }

    /// `DATE` (or `@EPOCH`). Returns true when the expression is complete (no time may follow).
    mutating func parseDate() throws(CalendarParseError) -> Bool {
        if current == 0 { return false }
        if current == UInt8(ascii: "@") {
            try parseEpoch()
            return true
        }
        let start = i
        let first = try parseChain(usec: false, field: "date or hour")
        if current == 0 || current == UInt8(ascii: ":") {
            i = start   // it was the hour: let parseTime read it again
            return false
        }
        try expectDateSeparator()
        let second = try parseChain(usec: false, field: "month or day")
        if current == 0 || current == UInt8(ascii: " ") {
            skipSpaces()
            fields.month = first
            fields.day = second
            return false
        }
        if fields.endOfMonth { throw error("'~' may only separate the month and the day") }
        try expectDateSeparator()
        let third = try parseChain(usec: false, field: "day")
        if !(current == 0 || current == UInt8(ascii: " ")) { throw error("expected a space after the date") }
        skipSpaces()
        fields.year = first
        fields.month = second
        fields.day = third
        return false
    }

    private mutating func expectDateSeparator() throws(CalendarParseError) {
        if current == UInt8(ascii: "~") {
            fields.endOfMonth = true
        } else if current != UInt8(ascii: "-") {
            throw error(current == UInt8(ascii: " ") ? "incomplete date (expected '-' or '~')"
                        : "unexpected '\(rest(1))' in date (expected '-' or '~')")
        }
        i += 1
    }

    /// `@SECONDS`: a fixed UTC instant (strtoul rules: leading blanks and a sign are accepted).
    private mutating func parseEpoch() throws(CalendarParseError) {
        let at = i
        i += 1
        while [9, 10, 11, 12, 13, 32].contains(current) { i += 1 }
        var negative = false
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { negative = current == UInt8(ascii: "-"); i += 1 }
        guard isDigit(current) else { throw error("expected seconds since the epoch after '@'") }
        var value = 0
        while isDigit(current) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(current - 48))
            if o1 || o2 || a > 1 << 40 { throw error("epoch seconds out of range") }
            value = a
            i += 1
        }
        if negative && value != 0 { throw error("epoch seconds before 1970") }
        let civil = CivilDateTime(instant: Instant(seconds: Int64(value)), offsetSeconds: 0)
        func const(_ v: Int) -> CalendarChain { [CalendarComponent(start: v, stop: -1, repeat: 0, offset: at)] }
        fields.utc = true
        fields.year = const(civil.year)
        fields.month = const(civil.month)
        fields.day = const(civil.day)
        fields.hour = const(civil.hour)
        fields.minute = const(civil.minute)
        fields.microsecond = const(civil.second * CalendarFields.usecPerSecond)
    }

    /// `TIME`: `HOUR:MINUTE[:SECOND]`; an empty time is midnight.
    mutating func parseTime() throws(CalendarParseError) {
        let zero: CalendarChain = [CalendarComponent(start: 0, stop: -1, repeat: 0)]
        if current == 0 {
            fields.hour = zero; fields.minute = zero; fields.microsecond = zero
            return
        }
        let hour = try parseChain(usec: false, field: "hour")
        if current != UInt8(ascii: ":") {
            throw error(current == 0 ? "incomplete time (expected ':' after the hour)"
                        : "unexpected '\(rest(1))' (expected ':' after the hour)")
        }
        i += 1
        let minute = try parseChain(usec: false, field: "minute")
        var second = zero
        if current != 0 {
            if current != UInt8(ascii: ":") { throw error("unexpected '\(rest(8))' after the minute") }
            i += 1
            second = try parseChain(usec: true, field: "second")
            if current != 0 { throw error("unexpected '\(rest(8))' after the second") }
        }
        fields.hour = hour; fields.minute = minute; fields.microsecond = second
    }
}
