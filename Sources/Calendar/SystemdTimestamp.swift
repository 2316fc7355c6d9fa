/// A systemd timestamp (systemd.time(7), "PARSING TIMESTAMPS"), parsed exactly as systemd 252's
/// `parse_timestamp()` parses it (`systemd-analyze timestamp`), with the clock and the local zone
/// passed in as values instead of read from the process.
///
/// Forms, tried in this order:
///
/// | form | meaning |
/// |---|---|
/// | `@SPAN` | seconds since the epoch, any time span (`@1767225600`, `@1.5`, `@5min`) |
/// | `now`, `+SPAN`, `-SPAN`, `SPAN ago`, `SPAN left` | relative to `now` |
/// | `… UTC` (any case) | the rest read in UTC; `… ABBR` with the local zone's standard or daylight name (glibc's `tzname[]`, `CEST`) read as that flavor |
/// | `today`, `yesterday`, `tomorrow` | local midnight of that day |
/// | `[WEEKDAY ]DATE[ TIME]` | `DATE` `YYYY-MM-DD` or `YY-MM-DD`; `TIME` `HH:MM[:SS[.ffffff]]`; also `Mon DD HH:MM:SS` (journal style) and `TIME` alone (today); a weekday (`Sat`, `Saturday`, any case) must match the date |
///
/// Numbers are read as glibc's `strptime` reads them (1 or 2 digits, 4 for `%Y`; spaces before
/// a number are skipped), and out-of-range days are carried as `mktime` carries them
/// (`2026-02-31` is 2026-03-03). A local time is converted as glibc's `mktime` converts it: in a
/// DST gap the daylight side (`02:30` on New York's spring-forward day → 03:30 EDT); in a fold the
/// occurrence its probing from offset 0 reaches first (EDT in New York, CET in Berlin).
///
/// Differences from later systemd versions that are systemd 252's own: a trailing zone name
/// (`… Europe/Berlin`, or an abbreviation that is also a zone file such as `CET`, `EST`, `GMT`) is
/// rejected; `T` between date and time and RFC 3339 `Z`/`±HH:MM` are not accepted; results
/// before 1970 or after 9999-12-30 are rejected, except in the `@` form.
///
/// O(n) in the length of the text (a constant number of format attempts); never traps.
public enum SystemdTimestamp {
    /// systemd's `USEC_TIMESTAMP_FORMATTABLE_MAX`: Thu 9999-12-30 23:59:59.999999 UTC.
    public static let formattableMax: UInt64 = 253_402_214_399_999_999

    /// The instant `text` names, in microseconds since the epoch; `now` is the clock, `zone` the
    /// local zone (systemd's `TZ`), `isZoneName` says whether a word names a zone file
    /// (systemd's `timezone_is_valid`). Throws when systemd 252 would say "Invalid argument".
    ///
    /// The hidden state of glibc that decides two corners of a parse, carried from one timestamp to
    /// the next as in one process that parses several (`systemd-analyze timestamp A B C`).
    public struct GlibcState: Sendable, Hashable {
        /// The offset `mktime` starts probing from (decides folds): 0 in a fresh process; a process
        /// that called `mktime` before — libfaketime does, for the time it fakes — starts from that
        /// call's offset.
        public var mktimeGuess: Int
        /// The instant last converted with `localtime`, which sets `tzname[]` (the abbreviations a
        /// timestamp may end with); nil: none yet, `tzset()`'s names. A parse that succeeds leaves
        /// its result here, as printing it does.
        public var lastLocalTime: Instant?
        public init(mktimeGuess: Int = 0, lastLocalTime: Instant? = nil) {
            self.mktimeGuess = mktimeGuess; self.lastLocalTime = lastLocalTime
        }
    }

    /// As a fresh process reads it.
    public static func parse(_ text: String, now: Instant, zone: TimeZoneRules,
                             isZoneName: (String) -> Bool) throws(TimestampError) -> UInt64 {
        var state = GlibcState()
        return try parse(text, now: now, zone: zone, state: &state, isZoneName: isZoneName)
    }

    /// Parses with glibc's hidden state `state`, and updates it as glibc would.
    public static func parse(_ text: String, now: Instant, zone: TimeZoneRules, state: inout GlibcState,
                             isZoneName: (String) -> Bool) throws(TimestampError) -> UInt64 {
        var reachedLocalTime = false
        do {
            let micro = try parseFields(text, now: now, zone: zone, state: &state, reachedLocalTime: &reachedLocalTime,
                                        isZoneName: isZoneName)
            if micro > 0 && micro <= formattableMax { state.lastLocalTime = Instant(microseconds: Int64(micro)) }
            return micro
        } catch {
            if reachedLocalTime { state.lastLocalTime = now }
            throw error
        }
    }

    private static func parseFields(_ text: String, now: Instant, zone: TimeZoneRules, state: inout GlibcState,
                                    reachedLocalTime: inout Bool,
                                    isZoneName: (String) -> Bool) throws(TimestampError) -> UInt64 {
        let fail = TimestampError(text: text)
        guard !text.utf8.contains(0) else { throw fail }
        if let space = text.lastIndex(of: " ") {
            let last = String(text[text.index(after: space)...])
            if !hasSuffixIgnoringCase(text, " UTC") && isZoneName(last) { throw fail }
        }
        if text.hasPrefix("@") {
            do { return try TimeSpan.parse(String(text.dropFirst())) } catch { throw fail }
        }
        guard now.microseconds >= 0 else { throw fail }
        let nowMicro = UInt64(now.microseconds)
        func relative(_ span: Substring, plus: Bool) throws(TimestampError) -> UInt64 {
            let value: UInt64
            do { value = try TimeSpan.parse(String(span)) } catch { throw fail }
            if plus {
                let (sum, overflow) = nowMicro.addingReportingOverflow(value)
                guard !overflow, sum <= formattableMax else { throw fail }
                return sum
            }
            guard nowMicro >= value else { throw fail }
            return nowMicro - value
        }
        if text == "now" { return nowMicro }
        if text.hasPrefix("+") { return try relative(text.dropFirst(), plus: true) }
        if text.hasPrefix("-") { return try relative(text.dropFirst(), plus: false) }
        if text.hasSuffix(" ago") { return try relative(text.dropLast(4), plus: false) }
        if text.hasSuffix(" left") { return try relative(text.dropLast(5), plus: true) }

        var t = Substring(text)
        var utc = false
        var isdst = -1
        if hasSuffixIgnoringCase(text, " UTC") {
            utc = true
            t = t.dropLast(4)
        } else {
            let names = zone.glibcState(after: state.lastLocalTime)
            for (j, name) in [names.standardName, names.daylightName].enumerated() where !name.isEmpty {
                guard t.count > name.count, hasSuffixIgnoringCase(t, name) else { continue }
                let rest = t.dropLast(name.count)
                guard rest.last == " " else { continue }
                t = rest.dropLast()
                isdst = j
                break
            }
        }
        let local = utc ? TimeZoneRules.utc : zone
        let clockZone: TimeZoneRules? = utc ? nil : zone
        reachedLocalTime = !utc
        var tm = TimestampFields(local.localDateTime(at: now))

        switch t {
        case "today": return try finish(tm.midnight(dayDelta: 0), isdst: isdst, zone: clockZone, guess: &state.mktimeGuess, fail: fail)
        case "yesterday": return try finish(tm.midnight(dayDelta: -1), isdst: isdst, zone: clockZone, guess: &state.mktimeGuess, fail: fail)
        case "tomorrow": return try finish(tm.midnight(dayDelta: 1), isdst: isdst, zone: clockZone, guess: &state.mktimeGuess, fail: fail)
        default: break
        }

        var bytes = Array(t.utf8)
        var weekday: Int?
        for (name, number) in weekdayNames {
            let n = Array(name.utf8)
            guard bytes.count > n.count, bytes[n.count] == 0x20,
                  zip(bytes, n).allSatisfy({ lower($0) == lower($1) }) else { continue }
            weekday = number
            bytes.removeFirst(n.count + 1)
            break
        }
        bytes.append(0)
        let copy = tm
        for format in formats {
            tm = copy
            guard var k = Strptime.parse(bytes, format: format.pattern, into: &tm) else { continue }
            var fraction: UInt64 = 0
            if bytes[k] == UInt8(ascii: "."), format.fraction {
                k += 1
                guard let (value, end) = fractionalPart(bytes, at: k) else { throw fail }
                guard bytes[end] == 0 else { throw fail }
                fraction = value
            } else if bytes[k] != 0 {
                continue
            }
            if format.zeroSeconds { tm.second = 0 }
            if format.zeroTime { tm.hour = 0; tm.minute = 0; tm.second = 0 }
            if let weekday, tm.weekday != weekday { throw fail }
            let seconds = try finish(tm, isdst: isdst, zone: clockZone, guess: &state.mktimeGuess, fail: fail)
            let (sum, overflow) = seconds.addingReportingOverflow(fraction)
            guard !overflow, sum <= formattableMax else { throw fail }
            return sum
        }
        throw fail
    }

    /// The broken-down time converted as `mktime` (or `timegm` for UTC) converts it, in µs.
    /// glibc's `mktime` starts from `guess`, the offset its previous call found (see `WallClock`).
    private static func finish(_ fields: TimestampFields, isdst: Int, zone: TimeZoneRules?, guess: inout Int,
                               fail: TimestampError) throws(TimestampError) -> UInt64 {
        var clock = WallClock(zone: zone, honorsDSTHint: true)
        var tm = fields.brokenDown(isDST: isdst)
        // timegm (UTC) has no state; mktime starts from, and leaves, the guess.
        if zone != nil { clock.guess = guess }
        let result = clock.normalize(&tm)
        if zone != nil, result != nil { guess = clock.guess }
        guard let seconds = result, seconds >= 0 else { throw fail }
        let (micro, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        guard !overflow, micro <= formattableMax else { throw fail }
        return micro
    }

    /// systemd's `parse_fractional_part_u(&k, 6, …)`: up to six digits (at least one), padded to
    /// six, rounded up by a seventh digit ≥ 5; further digits are skipped.
    static func fractionalPart(_ b: [UInt8], at start: Int) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var s = start
        var i = 0
        while i < 6 {
            guard TimeSpan.isDigit(b[s]) else {
                if i == 0 { return nil }
                while i < 6 { value *= 10; i += 1 }
                break
            }
            value = value * 10 + UInt64(b[s] - 0x30)
            s += 1
            i += 1
        }
        if b[s] >= UInt8(ascii: "5") && b[s] <= UInt8(ascii: "9") { value += 1 }
        while TimeSpan.isDigit(b[s]) { s += 1 }
        return (value, s)
    }

    private struct Format { var pattern: [UInt8]; var fraction: Bool; var zeroSeconds: Bool; var zeroTime: Bool }
    /// systemd 252's `strptime` formats, in its order.
    private static let formats: [Format] = [
        ("%y-%m-%d %H:%M:%S", true, false, false), ("%Y-%m-%d %H:%M:%S", true, false, false),
        ("%b %d %H:%M:%S", true, false, false),
        ("%y-%m-%d %H:%M", false, true, false), ("%Y-%m-%d %H:%M", false, true, false),
        ("%y-%m-%d", false, false, true), ("%Y-%m-%d", false, false, true),
        ("%H:%M:%S", true, false, false), ("%H:%M", false, true, false),
    ].map { Format(pattern: Array($0.0.utf8), fraction: $0.1, zeroSeconds: $0.2, zeroTime: $0.3) }

    private static let weekdayNames: [(String, Int)] = [
        ("Sunday", 0), ("Sun", 0), ("Monday", 1), ("Mon", 1), ("Tuesday", 2), ("Tue", 2), ("Wednesday", 3),
        ("Wed", 3), ("Thursday", 4), ("Thu", 4), ("Friday", 5), ("Fri", 5), ("Saturday", 6), ("Sat", 6),
    ]

    static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c + 0x20 : c }

    static func hasSuffixIgnoringCase(_ text: some StringProtocol, _ suffix: String) -> Bool {
        let a = Array(text.utf8), b = Array(suffix.utf8)
        guard a.count >= b.count else { return false }
        return zip(a[(a.count - b.count)...], b).allSatisfy { lower($0) == lower($1) }
    }
}

/// Why a timestamp was rejected (systemd: `Failed to parse "…": Invalid argument`).
public struct TimestampError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public init(text: String) { self.text = text }
    public var description: String { "invalid timestamp '\(text)'" }
}
