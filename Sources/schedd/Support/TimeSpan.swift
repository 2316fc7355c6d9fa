/// Parses a systemd time span (systemd.time(7)): `90s`, `15min`, `2h`, `1d 6h`, `1h30m`, `500ms`.
///
/// Units: us/usec/µs, ms/msec, s/sec/second(s), m/min/minute(s), h/hr/hour(s), d/day(s), w/week(s),
/// M/month(s) (30.44 d), y/year(s) (365.25 d). A bare number is seconds. Components may be separated
/// by spaces and each may have a fraction (`1.5h`). Returns microseconds, or nil when malformed,
/// empty or beyond 100 years (no sensible test advances further).
func parseTimeSpan(_ text: String) -> Int64? {
    let units: [(names: [String], micros: Double)] = [
        (["us", "usec", "µs"], 1),
        (["ms", "msec"], 1e3),
        (["s", "sec", "second", "seconds"], 1e6),
        (["m", "min", "minute", "minutes"], 60e6),
        (["h", "hr", "hour", "hours"], 3600e6),
        (["d", "day", "days"], 86400e6),
        (["w", "week", "weeks"], 604800e6),
        (["M", "month", "months"], 2_629_800e6),
        (["y", "year", "years"], 31_557_600e6),
    ]
    let chars = Array(text)
    var i = 0
    var total = 0.0
    var components = 0
    while true {
        while i < chars.count, chars[i] == " " { i += 1 }
        if i == chars.count { break }
        var number = ""
        while i < chars.count, chars[i].isASCII, chars[i].isNumber || chars[i] == "." { number.append(chars[i]); i += 1 }
        guard let value = Double(number), value >= 0 else { return nil }
        while i < chars.count, chars[i] == " " { i += 1 }
        var unit = ""
        while i < chars.count, chars[i].isLetter { unit.append(chars[i]); i += 1 }
        let scale: Double
        if unit.isEmpty {
            scale = 1e6
        } else if let match = units.first(where: { $0.names.contains(unit) }) {
            scale = match.micros
        } else {
            return nil
        }
        total += value * scale
        components += 1
    }
    guard components > 0, total <= 100 * 31_557_600e6 else { return nil }
    return Int64(total.rounded())
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
