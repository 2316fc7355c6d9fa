/// A parse failure before the `calendar: '<text>': ` prefix is added.
struct CalendarParseError: Error {
    var message: String
}

/// The systemd 252 calendar-event parser (`calendar_spec_from_string`), rewritten over UTF-8 bytes.
///
/// Accepts exactly what systemd accepts, including its leniencies: a trailing comma after weekdays
/// (`Mon, 12:00`), `-` as a weekday range (`Mon-Fri`), two-part dates (`05-05`), and any case for
/// weekday names, shorthands and the `UTC` suffix. Offsets in messages are byte offsets into the text.
struct CalendarParser {
    let s: [UInt8]
    var i = 0
    var fields = CalendarFields()

    /// systemd's `CALENDARSPEC_COMPONENTS_MAX`: longer chains are refused (they would only be slow).
    static let maxComponents = 240

    static func parse(_ text: String, zones: any ZoneResolver) throws(CalendarParseError)
        -> (fields: CalendarFields, zoneName: String?, zone: TimeZoneRules?) {
        var bytes = Array(text.utf8)
        var fields = CalendarFields()
        var zoneName: String?
        var zone: TimeZoneRules?
        if bytes.count >= 4 && asciiLowercased(bytes[(bytes.count - 4)...]) == Array(" utc".utf8) {
            fields.utc = true
            bytes.removeLast(4)
        } else if let space = bytes.lastIndex(of: UInt8(ascii: " ")) {
            let candidate = String(decoding: bytes[(space + 1)...], as: UTF8.self)
            if isPlausibleZoneName(candidate), let rules = try? zones.zone(named: candidate) {
                zoneName = candidate
                zone = rules
                bytes.removeSubrange(space...)
            }
        }
        if zoneName == "UTC" { fields.utc = true; zoneName = nil; zone = nil }
        if bytes.isEmpty { throw CalendarParseError(message: "empty expression") }
        var parser = CalendarParser(s: bytes, fields: fields)
        try parser.parseBody()
        return (parser.fields, zoneName, zone)
    }

    /// systemd's `timezone_is_valid` name rules: `[A-Za-z0-9_+-]` words joined by single `/`.
    static func isPlausibleZoneName(_ name: String) -> Bool {
        let b = Array(name.utf8)
        guard let first = b.first, let last = b.last, first != UInt8(ascii: "/"), last != UInt8(ascii: "/") else {
            return false
        }
        // Every zone name has a letter; without one (`2024-01-01`) there is no file worth opening.
        guard b.contains(where: { isAlnum($0) && !isDigit($0) }) else { return false }
        var previousSlash = false
        for c in b {
            let isSlash = c == UInt8(ascii: "/")
            if isSlash && previousSlash { return false }
            if !isSlash && !isAlnum(c) && c != UInt8(ascii: "-") && c != UInt8(ascii: "_") && c != UInt8(ascii: "+") {
                return false
            }
            previousSlash = isSlash
        }
        return true
    }

    /// The shorthand named `lowercased`, applied to `f`; false when it is not one.
    private static func applyShorthand(_ lowercased: String, to f: inout CalendarFields) -> Bool {
        switch lowercased {
        case "minutely": f.microsecond = [zero]
        case "hourly": f.minute = [zero]; f.microsecond = [zero]
        case "daily": midnight(&f)
        case "monthly": f.day = [one]; midnight(&f)
        case "annually", "yearly", "anually": f.month = [one]; f.day = [one]; midnight(&f)
        case "weekly": f.weekdayBits = 1; midnight(&f)
        case "quarterly": f.month = [1, 4, 7, 10].map(value); f.day = [one]; midnight(&f)
        case "biannually", "bi-annually", "semiannually", "semi-annually":
            f.month = [1, 7].map(value); f.day = [one]; midnight(&f)
        default: return false
        }
        return true
    }
    private static func value(_ v: Int) -> CalendarComponent { CalendarComponent(start: v, stop: -1, repeat: 0) }
    private static let zero = value(0)
    private static let one = value(1)
    private static func midnight(_ f: inout CalendarFields) {
        f.hour = [zero]; f.minute = [zero]; f.microsecond = [zero]
    }

    mutating func parseBody() throws(CalendarParseError) {
        if s.count <= 13, Self.applyShorthand(String(decoding: Self.asciiLowercased(s[...]), as: UTF8.self),
                                               to: &fields) {
            return
        }
        try parseWeekdays()
        if try !parseDate() { try parseTime() }
        if i < s.count { throw error("unexpected '\(rest(8))'") }
    }

    // MARK: - Errors and characters

    func error(_ what: String, at offset: Int? = nil) -> CalendarParseError {
        CalendarParseError(message: "\(what) at offset \(offset ?? i)")
    }

    var current: UInt8 { i < s.count ? s[i] : 0 }
    func peek(_ k: Int) -> UInt8 { i + k < s.count ? s[i + k] : 0 }

    /// Up to `n` bytes from the cursor, for messages.
    func rest(_ n: Int) -> String {
        String(decoding: s[i..<min(s.count, i + n)], as: UTF8.self)
    }

    /// The run of letters at `offset` (the word a message names).
    func word(at offset: Int) -> String {
        var e = offset
        while e < s.count && (isAlnum(s[e]) || s[e] >= 0x80) { e += 1 }
        return String(decoding: s[offset..<max(e, min(offset + 1, s.count))], as: UTF8.self)
    }

    mutating func skipSpaces() { while current == UInt8(ascii: " ") { i += 1 } }

    static func asciiLowercased(_ b: ArraySlice<UInt8>) -> [UInt8] {
        b.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }
}

@inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
@inline(__always) func isAlnum(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20 >= 97 && c | 0x20 <= 122) }
