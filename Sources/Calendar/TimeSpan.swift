/// A systemd time span (systemd.time(7)) — `90s`, `15min`, `1h 30min`, `2.5d`, `23μs`, `infinity` —
/// parsed exactly as systemd 252's `parse_sec()` / `parse_time()` in `src/basic/time-util.c`.
///
/// Grammar, after leading spaces (` \t\n\r`): `infinity` (then only spaces), or one or more
/// components, each an optional run of spaces, a decimal number as C's `strtoll` reads it (more
/// spaces, `\v`, `\f` and a `+` sign allowed; `-` is out of range) with an optional `.` and
/// fraction digits, optional spaces, and an optional unit (default seconds):
///
/// | unit | value | unit | value |
/// |---|---|---|---|
/// | `us` `usec` `µs` `μs` | 1 µs | `h` `hr` `hour` `hours` | 3,600 s |
/// | `ms` `msec` | 1,000 µs | `d` `day` `days` | 86,400 s |
/// | `s` `sec` `second` `seconds` | 1 s | `w` `week` `weeks` | 604,800 s |
/// | `m` `min` `minute` `minutes` | 60 s | `M` `month` `months` | 2,629,800 s (30.44 d) |
/// | | | `y` `year` `years` | 31,557,600 s (365.25 d) |
///
/// Units are matched as prefixes in systemd's table order (`5minx` is `5min` then `x`, which fails).
/// A `.` must be followed by a digit (`3.s`, `3. 1`, ` 5. ` are rejected; `.5s` is 0.5 s); fraction
/// digits beyond the unit's precision are dropped, not rounded (`1.5us` is 1 µs). Components add
/// up: `1h30` is 1 h + 30 s. Worked examples, all checked against `systemd-analyze timespan`:
/// `+3.1s` → 3,100,000 µs; `23μs` → 23; `1y 2months 3.5d` → 37,119,600,000,000.
///
/// Invariant: a result is below `infinity` (`UInt64.max`) unless the text is `infinity`; a sum
/// reaching it is out of range, as in systemd. O(n) in the length of the text; never traps.
public enum TimeSpan {
    /// systemd's `USEC_INFINITY`: what `infinity` parses to.
    public static let infinity = UInt64.max
    public static let microsecondsPerSecond: UInt64 = 1_000_000

    /// The span `text` in microseconds; a bare number counts `defaultUnit` microseconds (seconds
    /// unless told). Throws `.invalid` (systemd's `EINVAL`) or `.outOfRange` (`ERANGE`).
    public static func parse(_ text: String, defaultUnit: UInt64 = microsecondsPerSecond) throws(TimeSpanError) -> UInt64 {
        precondition(defaultUnit > 0)
        // A C string ends at its first NUL: systemd never sees what follows one, so nothing may.
        var b = Array(text.utf8)
        guard !b.contains(0) else { throw TimeSpanError(.invalid, text) }
        b.append(0)
        var p = 0
        while isWhitespace(b[p]) { p += 1 }
        if let after = match(b, at: p, "infinity") {
            var s = after
            while isWhitespace(b[s]) { s += 1 }
            guard b[s] == 0 else { throw TimeSpanError(.invalid, text) }
            return infinity
        }
        var total: UInt64 = 0
        var something = false
        while true {
            var multiplier = defaultUnit
            while isWhitespace(b[p]) { p += 1 }
            if b[p] == 0 {
                guard something else { throw TimeSpanError(.invalid, text) }
                return total
            }
            if b[p] == UInt8(ascii: "-") { throw TimeSpanError(.outOfRange, text) }  // no "-0"
            let (value, e) = try strtoll(b, from: p, text: text)
            if b[e] == UInt8(ascii: ".") {
                p = e + 1
                while isDigit(b[p]) { p += 1 }
            } else if e == p {
                throw TimeSpanError(.invalid, text)
            } else {
                p = e
            }
            var q = p
            while isWhitespace(b[q]) { q += 1 }
            var s = q
            if let (unit, end) = extractMultiplier(b, at: q) { multiplier = unit; s = end }
            // '12.34.56' is rejected, '12.34 .56' and '12.34s.56' are not.
            if s == p && b[s] != 0 { throw TimeSpanError(.invalid, text) }
            p = s
            let whole = UInt64(value)
            guard whole < infinity / multiplier else { throw TimeSpanError(.outOfRange, text) }
            var k = whole * multiplier
            guard k < infinity - total else { throw TimeSpanError(.outOfRange, text) }
            total += k
            something = true
            if b[e] == UInt8(ascii: ".") {
                var m = multiplier / 10
                var digit = e + 1
                while isDigit(b[digit]) {
                    k = UInt64(b[digit] - UInt8(ascii: "0")) * m
                    guard k < infinity - total else { throw TimeSpanError(.outOfRange, text) }
                    total += k
                    digit += 1
                    m /= 10
                }
                // "0.-0", "3.+1", "3. 1", "3.sec" are rejected.
                if digit == e + 1 { throw TimeSpanError(.invalid, text) }
            }
        }
    }

    /// systemd's unit table, in its order: the first entry that prefixes the text wins.
    static let units: [(suffix: [UInt8], microseconds: UInt64)] = [
        ("seconds", 1_000_000), ("second", 1_000_000), ("sec", 1_000_000), ("s", 1_000_000),
        ("minutes", 60_000_000), ("minute", 60_000_000), ("min", 60_000_000),
        ("months", 2_629_800_000_000), ("month", 2_629_800_000_000), ("M", 2_629_800_000_000),
        ("msec", 1000), ("ms", 1000), ("m", 60_000_000),
        ("hours", 3_600_000_000), ("hour", 3_600_000_000), ("hr", 3_600_000_000), ("h", 3_600_000_000),
        ("days", 86_400_000_000), ("day", 86_400_000_000), ("d", 86_400_000_000),
        ("weeks", 604_800_000_000), ("week", 604_800_000_000), ("w", 604_800_000_000),
        ("years", 31_557_600_000_000), ("year", 31_557_600_000_000), ("y", 31_557_600_000_000),
        ("usec", 1), ("us", 1), ("μs", 1), ("µs", 1),  // U+03BC GREEK SMALL LETTER MU, U+00B5 MICRO SIGN
    ].map { (Array($0.0.utf8), $0.1) }

    static func extractMultiplier(_ b: [UInt8], at p: Int) -> (UInt64, Int)? {
        for unit in units {
            if let end = match(b, at: p, unit.suffix) { return (unit.microseconds, end) }
        }
        return nil
    }

    /// C's `strtoll(p, &e, 10)`: spaces (`isspace`), a sign, digits. No digits → (0, p).
    /// Overflow of `long long` is `ERANGE`; a negative value is out of range for a span too, except
    /// `-0`, which `strtoll` reads as 0 (systemd catches a `-` only right after its own spaces).
    static func strtoll(_ b: [UInt8], from p: Int, text: String) throws(TimeSpanError) -> (Int64, Int) {
        var i = p
        while isCSpace(b[i]) { i += 1 }
        var negative = false
        if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { negative = b[i] == UInt8(ascii: "-"); i += 1 }
        guard isDigit(b[i]) else { return (0, p) }
        var value: UInt64 = 0
        var overflow = false
        while isDigit(b[i]) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(b[i] - UInt8(ascii: "0")))
            if o1 || o2 || a > UInt64(Int64.max) { overflow = true } else { value = a }
            i += 1
        }
        if overflow || (negative && value > 0) { throw TimeSpanError(.outOfRange, text) }
        return (Int64(value), i)
    }

    static func match(_ b: [UInt8], at p: Int, _ word: String) -> Int? { match(b, at: p, Array(word.utf8)) }
    static func match(_ b: [UInt8], at p: Int, _ word: [UInt8]) -> Int? {
        guard p + word.count < b.count else { return nil }  // b ends with a NUL sentinel
        for (i, c) in word.enumerated() where b[p + i] != c { return nil }
        return p + word.count
    }

    /// systemd's WHITESPACE: space, tab, newline, carriage return.
    static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    /// C's `isspace` in the C locale: WHITESPACE plus vertical tab and form feed.
    static func isCSpace(_ c: UInt8) -> Bool { isWhitespace(c) || c == 0x0B || c == 0x0C }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}

/// Why a time span was rejected: systemd's `EINVAL` (not a span) or `ERANGE` (too large, negative).
public struct TimeSpanError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case invalid, outOfRange }
    public var kind: Kind
    /// The text as given.
    public var text: String
    public init(_ kind: Kind, _ text: String) { self.kind = kind; self.text = text }
    /// `invalid time span '3.s'` / `time span '-5s' out of range`.
    public var description: String {
        kind == .invalid ? "invalid time span '\(text)'" : "time span '\(text)' out of range"
    }
    /// strerror's wording, as systemd prints it: `Invalid argument` / `Numerical result out of range`.
    public var systemdReason: String { kind == .invalid ? "Invalid argument" : "Numerical result out of range" }
}
