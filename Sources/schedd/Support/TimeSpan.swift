import SchedCalendar

/// A systemd time span (`90s`, `15min`, `1h 30min`) in microseconds, parsed exactly as
/// `systemd-analyze timespan` parses it (`TimeSpan.parse`); nil when rejected, `infinity`, or
/// beyond what an `Int64` of microseconds holds (about 292,000 years).
func parseTimeSpan(_ text: String) -> Int64? {
    guard let value = try? TimeSpan.parse(text), value <= UInt64(Int64.max) else { return nil }
    return Int64(value)
}

/// A span in systemd's relative style, two components at most: `2h 5min`, `1 day 4h`,
/// `8 months 24 days`, `45s`, `now` (the same steps as systemd's `format_timestamp_relative`).
func formatRelativeSpan(microseconds: Int64) -> String {
    let d = UInt64(abs(microseconds))
    let sec: UInt64 = 1_000_000, minute = 60 * sec, hour = 60 * minute, day = 24 * hour
    let week = 7 * day, month = 2_629_800 * sec, year = 31_557_600 * sec
    func plural(_ n: UInt64, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
    switch d {
    case year...: return plural(d / year, "year", "years") + " " + plural(d % year / month, "month", "months")
    case month...: return plural(d / month, "month", "months") + " " + plural(d % month / day, "day", "days")
    case week...: return plural(d / week, "week", "weeks") + " " + plural(d % week / day, "day", "days")
    case (2 * day)...: return "\(d / day) days"
    case (25 * hour)...: return "1 day \((d - day) / hour)h"
    case (6 * hour)...: return "\(d / hour)h"
    case hour...: return "\(d / hour)h \(d % hour / minute)min"
    case (5 * minute)...: return "\(d / minute)min"
    case minute...: return "\(d / minute)min \(d % minute / sec)s"
    case sec...: return "\(d / sec)s"
    case 1000...: return "\(d / 1000)ms"
    case 1...: return "\(d)us"
    default: return "now"
    }
}

/// `from now` wording: `13h left` / `2 days ago` / `now` (systemd-analyze calendar).
func relativeToNow(_ deltaMicroseconds: Int64, future: String = "left", past: String = "ago") -> String {
    if deltaMicroseconds == 0 { return "now" }
    let span = formatRelativeSpan(microseconds: deltaMicroseconds)
    return deltaMicroseconds > 0 ? "\(span) \(future)" : "\(span) \(past)"
}

/// Unit words people write that systemd's span grammar refuses (`systemd-analyze timespan '5 mins'`
/// fails in systemd 252), with systemd's word for each: for "did you mean" hints.
private let spanUnitReplacements: [String: String] = [
    "mins": "min", "mns": "min", "mn": "min", "hrs": "h", "secs": "s", "sek": "s", "wk": "w", "wks": "w",
    "yr": "y", "yrs": "y", "mo": "month", "mos": "months", "mon": "month", "mons": "months",
    "millis": "ms", "msecs": "ms", "usecs": "us", "dys": "d", "hs": "h",
]

/// systemd's unit words (`TimeSpan`'s table) that a misspelling is measured against.
private let spanUnitWords = ["seconds", "second", "sec", "minutes", "minute", "min", "hours", "hour", "days", "day",
                             "weeks", "week", "months", "month", "years", "year", "msec", "usec"]

/// What the person probably meant by a span systemd refuses — `5 mins` → `5min`, `1 hrs 30 secs` →
/// `1h 30s`, `2 mintues` → `2 minutes` — or nil when no unit word explains the refusal or the
/// rewritten span is refused too. Each component is a number (digits, `.`, `+`) and a word; a word
/// systemd knows stays, one in `spanUnitReplacements` is replaced, any other goes to the closest of
/// `spanUnitWords` (`closestMatch`). O(n) in the text, on the error path only.
func spanSuggestion(_ text: String) -> String? {
    var components: [String] = []
    var changed = false
    var rest = Substring(text)
    while true {
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        if rest.isEmpty { break }
        let number = rest.prefix(while: { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "+") })
        rest = rest.dropFirst(number.count)
        let spaced = rest.first == " " || rest.first == "\t"
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        let word = String(rest.prefix(while: { $0.isLetter }))
        rest = rest.dropFirst(word.count)
        guard !number.isEmpty else { return nil }
        var unit = word
        if !word.isEmpty && (try? TimeSpan.parse("1" + word)) == nil {
            guard let replacement = spanUnitReplacements[word.lowercased()]
                    ?? closestMatch(to: word.lowercased(), among: spanUnitWords) else { return nil }
            unit = replacement
            changed = true
        }
        // Spaced as written, but a one- or three-letter unit sticks to its number as systemd prints it.
        components.append(number + (spaced && unit.count > 3 ? " " : "") + unit)
    }
    guard changed else { return nil }
    let suggestion = components.joined(separator: " ")
    return parseTimeSpan(suggestion) == nil ? nil : suggestion
}

/// `; did you mean 'X'?` for a refused span (`spanSuggestion`), or "".
func spanHint(_ text: String) -> String {
    spanSuggestion(text).map { "; did you mean '\($0)'?" } ?? ""
}
