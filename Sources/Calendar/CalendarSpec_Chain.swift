extension CalendarParser {
    /// systemd refuses values above `INT_MAX` (they are stored in a C `int`).
    private static let intMax = Int(Int32.max)

    /// `CHAIN`: `*`, or values `N[..N][/N]` joined by `,`. Seconds (`usec`) are in microseconds and may
    /// carry a fraction; `*` there means `0/1`.
    mutating func parseChain(usec: Bool, field: String) throws(CalendarParseError) -> CalendarChain {
        if current == UInt8(ascii: "*") {
            i += 1
            return usec ? [CalendarComponent(start: 0, stop: -1, repeat: CalendarFields.usecPerSecond)] : nil
        }
        var chain: [CalendarComponent] = []
        while true {
            if chain.count > Self.maxComponents {
                throw error("too many values in the \(field) (at most \(Self.maxComponents + 1))")
            }
            chain.append(try parseComponent(usec: usec, field: field))
            guard current == UInt8(ascii: ",") else { return chain }
            i += 1
        }
    }

    private mutating func parseComponent(usec: Bool, field: String) throws(CalendarParseError) -> CalendarComponent {
        let unit = usec ? CalendarFields.usecPerSecond : 1
        let offset = i
        let start = try parseDecimal(usec: usec, field: field)
        var stop = -1
        var repeatValue = 0
        if current == UInt8(ascii: ".") && peek(1) == UInt8(ascii: ".") {
            i += 2
            stop = try parseDecimal(usec: usec, field: field)
            repeatValue = unit
        }
        if current == UInt8(ascii: "/") {
            i += 1
            let at = i
            repeatValue = try parseDecimal(usec: usec, field: field)
            if repeatValue == 0 { throw error("repetition /0 in the \(field)", at: at) }
        } else {
            if start > Self.intMax - repeatValue { throw error("\(field) value too large") }
            // Without an explicit repetition a seconds range steps by 1 s, so it must span at least that.
            if usec && stop >= 0 && start + repeatValue > stop {
                throw error("seconds range shorter than one second needs a repetition")
            }
        }
        let next = current
        guard next == 0 || next == UInt8(ascii: " ") || next == UInt8(ascii: ",") || next == UInt8(ascii: "-")
                || next == UInt8(ascii: "~") || next == UInt8(ascii: ":") else {
            throw error("unexpected '\(rest(1))' in the \(field)")
        }
        return CalendarComponent(start: start, stop: stop, repeat: repeatValue, offset: offset)
    }

    /// A decimal number (`strtoul`), times 10^6 plus up to six rounded fractional digits for seconds.
    private mutating func parseDecimal(usec: Bool, field: String) throws(CalendarParseError) -> Int {
        guard isDigit(current) else {
            if current == 0 { throw error("missing \(field)") }
            if isAlnum(current) || current >= 0x80 {
                let word = word(at: i)
                throw error("unknown word '\(word)' (not a weekday, shorthand, number or '*'\(CalendarWordHints.hint(for: word)))")
            }
            throw error("unexpected '\(rest(1))' (expected a number or '*' for the \(field))")
        }
        let begin = i
        var value = 0
        var tooLarge = false
        while isDigit(current) {
            if !tooLarge {
                value = value * 10 + Int(current - 48)
                if value > Self.intMax { tooLarge = true }
            }
            i += 1
        }
        if usec {
            if !tooLarge { value *= CalendarFields.usecPerSecond }
            // One "." is a decimal point, ".." a range.
            if current == UInt8(ascii: ".") && peek(1) != UInt8(ascii: ".") {
                i += 1
                guard isDigit(current) else { throw error("expected digits after the decimal point") }
                var fraction = 0
                for _ in 0..<6 {
                    if isDigit(current) {
                        fraction = fraction * 10 + Int(current - 48)
                        i += 1
                    } else {
                        fraction *= 10
                    }
                }
                if current >= UInt8(ascii: "5") && current <= UInt8(ascii: "9") { fraction += 1 }
                while isDigit(current) { i += 1 }
                value += fraction
            }
        }
        if tooLarge || value > Self.intMax {
            throw error("\(field) value '\(String(decoding: s[begin..<i], as: UTF8.self))' too large", at: begin)
        }
        return value
    }
}
