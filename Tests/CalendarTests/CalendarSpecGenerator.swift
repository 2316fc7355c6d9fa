import SystemZones
import SeededRandomness
/// Generates systemd calendar expressions: weekday lists and ranges in any spelling and case, value
/// lists, ranges and repetitions in every field, `~`, shorthands, fractional seconds, zone suffixes.
/// Values cluster on the hours where DST transitions happen, and some are out of range on purpose
/// (both implementations must then reject them).
struct CalendarSpecGenerator {
    var random: SplitMix64
    /// Zone names usable as suffixes (must be loadable by `ZoneDatabase`).
    var suffixZones: [String]

    private static let dayNames = [["Mon", "Monday"], ["Tue", "Tuesday"], ["Wed", "Wednesday"],
                                   ["Thu", "Thursday"], ["Fri", "Friday"], ["Sat", "Saturday"],
                                   ["Sun", "Sunday"]]
    private static let shorthands = ["minutely", "hourly", "daily", "weekly", "monthly", "quarterly",
                                     "semiannually", "semi-annually", "biannually", "yearly", "annually",
                                     "Daily", "WEEKLY"]

    mutating func expression() -> String {
        var text: String
        if random.chance(0.1) {
            text = random.pick(Self.shorthands)
        } else {
            var parts: [String] = []
            if random.chance(0.35) { parts.append(weekdays()) }
            if random.chance(0.6) { parts.append(date()) }
            if random.chance(0.85) || parts.isEmpty { parts.append(time()) }
            text = parts.joined(separator: " ")
        }
        if random.chance(0.15) {
            text += random.chance(0.4) || suffixZones.isEmpty ? random.pick([" UTC", " utc"])
                : " " + random.pick(suffixZones)
        }
        return text
    }

    /// A short random string over the grammar's characters: mostly invalid, sometimes valid.
    mutating func garbage() -> String {
        let pieces = ["0", "1", "2", "7", "12", "30", "59", "60", "2024", "*", "-", "~", ":", ".", "..", ",", "/",
                      " ", "Mon", "fri", "Sun", "Wednesday", "UTC", "@", "daily", "x", "24", "00", "5", "/0", "~1"]
        var text = ""
        for _ in 0..<random.int(1...9) { text += random.pick(pieces) }
        return text
    }

    private mutating func dayName(_ n: Int) -> String {
        var name = random.pick(Self.dayNames[n])
        if random.chance(0.15) { name = name.lowercased() }
        if random.chance(0.05) { name = name.uppercased() }
        return name
    }

    private mutating func weekdays() -> String {
        var items: [String] = []
        for _ in 0..<random.int(1...3) {
            let a = random.int(0...6)
            if random.chance(0.5) {
                let b = random.int(random.chance(0.9) ? a...6 : 0...6)
                items.append(dayName(a) + random.pick(["..", "..", "-"]) + dayName(b))
            } else {
                items.append(dayName(a))
            }
        }
        return items.joined(separator: ",") + (random.chance(0.05) ? "," : "")
    }

    /// One chain over `lo...hi` (sometimes beyond), `*` with probability `star`.
    private mutating func chain(_ lo: Int, _ hi: Int, star: Double, favourite: [Int] = [], width: Int = 1) -> String {
        if random.chance(star) { return "*" }
        func value() -> Int {
            if !favourite.isEmpty && random.chance(0.5) { return random.pick(favourite) }
            return random.chance(0.02) ? hi + random.int(1...3) : random.int(lo...hi)
        }
        func show(_ v: Int) -> String { width > 1 && random.chance(0.5) ? pad(v, width) : String(v) }
        var items: [String] = []
        for _ in 0..<(random.chance(0.6) ? 1 : random.int(2...4)) {
            let a = value()
            switch random.int(0...5) {
            case 0, 1, 2: items.append(show(a))
            case 3: items.append(show(a) + ".." + show(min(hi, a + random.int(0...(hi - lo) / 2 + 1))))
            case 4: items.append(show(a) + "/" + String(random.int(1...max(1, (hi - lo) / 2))))
            default:
                items.append(show(a) + ".." + show(min(hi, a + random.int(1...(hi - lo) + 1))) + "/"
                             + String(random.int(1...max(1, (hi - lo) / 3))))
            }
        }
        return items.joined(separator: ",")
    }

    private func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private mutating func date() -> String {
        let endOfMonth = random.chance(0.12)
        let day = endOfMonth ? chain(1, 7, star: 0.1) : chain(1, 31, star: 0.4, favourite: [1, 7, 15, 28, 29, 30, 31])
        let month = chain(1, 12, star: 0.5, favourite: [3, 4, 9, 10, 11])
        let separator = endOfMonth ? "~" : "-"
        if random.chance(0.3) { return month + separator + day }
        let year: String
        switch random.int(0...5) {
        case 0: year = String(random.int(2024...2032))
        case 1: year = "\(random.int(2020...2026))..\(random.int(2027...2040))"
        case 2: year = String(random.int(24...30))   // two-digit years
        case 3: year = "\(random.int(2024...2027))/\(random.int(1...3))"
        case 4: year = random.chance(0.5) ? "\(random.int(2090...2190))..2199" : String(random.int(1970...2199))
        default: year = "*"
        }
        return year + "-" + month + separator + day
    }

    private mutating func time() -> String {
        let hour = chain(0, 23, star: 0.3, favourite: [0, 1, 2, 3, 23], width: 2)
        let minute = chain(0, 59, star: 0.2, favourite: [0, 15, 30, 45, 59], width: 2)
        if random.chance(0.5) { return hour + ":" + minute }
        var second: String
        switch random.int(0...5) {
        case 0: second = "*"
        case 1: second = String(random.int(0...59)) + "." + String(random.int(1...999_999))
        case 2: second = "0/" + String(random.int(1...30)) + (random.chance(0.3) ? ".5" : "")
        case 3: second = "\(random.int(0...20))..\(random.int(21...59))"
        default: second = chain(0, 59, star: 0, favourite: [0, 30], width: 2)
        }
        return hour + ":" + minute + ":" + second
    }
}
