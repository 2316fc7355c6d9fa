extension PosixTZ {
    /// Parses a POSIX TZ string (see `PosixTZ` for the grammar).
    ///
    /// Errors name the problem and its byte position:
    /// `invalid POSIX TZ string 'EST5EDT,M3.2': expected '.' at position 12`.
    init(parsing text: String) throws(ZoneError) {
        var p = PosixTZParser(bytes: Array(text.utf8), text: text)
        self = try p.parse()
    }
}

/// A cursor over the bytes of a TZ string; every read is bounds-checked.
private struct PosixTZParser {
    let bytes: [UInt8]
    let text: String
    var pos = 0

    init(bytes: [UInt8], text: String) { self.bytes = bytes; self.text = text }

    /// An error naming `what` went wrong at byte `position` (default: the current one), 0-based.
    func fail(_ what: String, at position: Int? = nil) -> ZoneError {
        ZoneError("invalid POSIX TZ string '\(text)': \(what) at position \(position ?? pos)")
    }

    var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    mutating func eat(_ c: Character) -> Bool {
        guard let ascii = c.asciiValue, peek == ascii else { return false }
        pos += 1
        return true
    }

    mutating func expect(_ c: Character) throws(ZoneError) {
        guard eat(c) else { throw fail("expected '\(c)'") }
    }

    mutating func parse() throws(ZoneError) -> PosixTZ {
        guard !bytes.isEmpty else { throw fail("empty string") }
        let stdName = try name()
        let stdOffset = -(try time(maxHours: 24, what: "standard time offset"))
        let std = ZoneOffset(utcOffsetSeconds: stdOffset, isDST: false, abbreviation: stdName)
        guard peek != nil else { return PosixTZ(std: std, dst: nil) }
        let dstName = try name()
        var dstOffset = stdOffset + 3600
        if let c = peek, c != UInt8(ascii: ",") { dstOffset = -(try time(maxHours: 24, what: "DST offset")) }
        let dst = ZoneOffset(utcOffsetSeconds: dstOffset, isDST: true, abbreviation: dstName)
        var start = PosixTZ.DateRule.monthWeekDay(month: 3, week: 2, weekday: 0)
        var end = PosixTZ.DateRule.monthWeekDay(month: 11, week: 1, weekday: 0)
        var startTime = 7200, endTime = 7200
        if peek != nil {
            try expect(",")
            start = try dateRule()
            if eat("/") { startTime = try time(maxHours: 167, what: "DST start time") }
            try expect(",")
            end = try dateRule()
            if eat("/") { endTime = try time(maxHours: 167, what: "DST end time") }
        }
        guard peek == nil else { throw fail("unexpected '\(Character(Unicode.Scalar(bytes[pos])))'") }
        return PosixTZ(std: std, dst: .init(offset: dst, start: start, startTime: startTime, end: end,
                                            endTime: endTime))
    }

    /// `EST` (3+ ASCII letters) or `<+0530>` (3+ letters, digits, `+`, `-`).
    mutating func name() throws(ZoneError) -> String {
        let begin = pos
        if eat("<") {
            let inner = pos
            while let c = peek, isAlnum(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { pos += 1 }
            let count = pos - inner
            try expect(">")
            guard count >= 3 else { throw fail("zone abbreviation shorter than 3 characters", at: begin) }
            return String(decoding: bytes[inner..<(inner + count)], as: UTF8.self)
        }
        while let c = peek, isAlpha(c) { pos += 1 }
        guard pos - begin >= 3 else { throw fail("expected a zone abbreviation of 3+ letters", at: begin) }
        return String(decoding: bytes[begin..<pos], as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, |hh| ≤ `maxHours`.
    mutating func time(maxHours: Int, what: String) throws(ZoneError) -> Int {
        var sign = 1
        if eat("-") { sign = -1 } else { _ = eat("+") }
        let at = pos
        guard let h = number(maxDigits: 3) else { throw fail("expected the hours of the \(what)") }
        guard h <= maxHours else { throw fail("hours of the \(what) above \(maxHours)", at: at) }
        var seconds = h * 3600
        if eat(":") {
            let at = pos
            guard let m = number(maxDigits: 2), m < 60 else { throw fail("expected minutes 00-59 in the \(what)", at: at) }
            seconds += m * 60
            if eat(":") {
                let at = pos
                guard let s = number(maxDigits: 2), s < 60 else {
                    throw fail("expected seconds 00-59 in the \(what)", at: at)
                }
                seconds += s
            }
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`.
    mutating func dateRule() throws(ZoneError) -> PosixTZ.DateRule {
        if eat("J") {
            let at = pos
            guard let n = number(maxDigits: 3), (1...365).contains(n) else {
                throw fail("expected a day 1-365 after J", at: at)
            }
            return .julian(n)
        }
        if eat("M") {
            var at = pos
            guard let m = number(maxDigits: 2), (1...12).contains(m) else { throw fail("expected a month 1-12", at: at) }
            try expect(".")
            at = pos
            guard let w = number(maxDigits: 1), (1...5).contains(w) else { throw fail("expected a week 1-5", at: at) }
            try expect(".")
            at = pos
            guard let d = number(maxDigits: 1), (0...6).contains(d) else { throw fail("expected a weekday 0-6", at: at) }
            return .monthWeekDay(month: m, week: w, weekday: d)
        }
        let at = pos
        guard let n = number(maxDigits: 3), (0...365).contains(n) else {
            throw fail("expected a date rule (Jn, n or Mm.w.d)", at: at)
        }
        return .zeroBased(n)
    }

    /// Up to `maxDigits` decimal digits; nil when none.
    mutating func number(maxDigits: Int) -> Int? {
        var value = 0, count = 0
        while let c = peek, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), count < maxDigits {
            value = value * 10 + Int(c - UInt8(ascii: "0"))
            count += 1
            pos += 1
        }
        return count == 0 ? nil : value
    }

    func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    func isAlnum(_ c: UInt8) -> Bool { isAlpha(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) }
}
