extension CalendarFields {
    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// systemd's `calendar_spec_to_string`: `[WEEKDAYS ]YYYY-MM-DD HH:MM:SS[ ZONE]`, every field a chain.
    ///
    /// Runs of weekdays print as `Mon..Wed` (three or more), `Sat,Sun` (two) or `Fri` (one).
    func formatted(zoneName: String?) -> String {
        var out = ""
        if weekdayBits > 0 && weekdayBits <= 127 {
            out += formattedWeekdays()
            out += " "
        }
        Self.append(year, width: 4, usec: false, to: &out)
        out += "-"
        Self.append(month, width: 2, usec: false, to: &out)
        out += endOfMonth ? "~" : "-"
        Self.append(day, width: 2, usec: false, to: &out)
        out += " "
        Self.append(hour, width: 2, usec: false, to: &out)
        out += ":"
        Self.append(minute, width: 2, usec: false, to: &out)
        out += ":"
        Self.append(microsecond, width: 2, usec: true, to: &out)
        if utc {
            out += " UTC"
        } else if let zoneName {
            out += " " + zoneName
        }
        return out
    }

    private func formattedWeekdays() -> String {
        var out = ""
        var runStart = -1
        func closeRun(at x: Int) {
            // x is one past the run's last day.
            if x > runStart + 1 {
                out += x > runStart + 2 ? ".." : ","
                out += Self.weekdayNames[x - 1]
            }
        }
        for x in 0..<7 {
            if weekdayBits & (1 << x) != 0 {
                if runStart < 0 {
                    if !out.isEmpty { out += "," }
                    out += Self.weekdayNames[x]
                    runStart = x
                }
            } else if runStart >= 0 {
                closeRun(at: x)
                runStart = -1
            }
        }
        if runStart >= 0 { closeRun(at: 7) }
        return out
    }

    /// One chain; `*` when it is absent or (for seconds) holds a component covering every second.
    private static func append(_ chain: CalendarChain, width: Int, usec: Bool, to out: inout String) {
        guard let chain, !chain.isEmpty else { out += "*"; return }
        if usec && chain.contains(where: { $0.start == 0 && $0.stop < 0 && $0.repeat == usecPerSecond }) {
            out += "*"
            return
        }
        let unit = usec ? usecPerSecond : 1
        for (i, c) in chain.enumerated() {
            if i > 0 { out += "," }
            out += pad(c.start / unit, width)
            if c.start % unit > 0 { out += "." + pad(c.start % unit, 6) }
            if c.stop > 0 { out += ".." + pad(c.stop / unit, width) }
            if c.stop > 0 && c.stop % unit > 0 { out += "." + pad(c.stop % unit, 6) }
            if c.repeat > 0 && !(c.stop > 0 && c.repeat == unit) { out += "/" + String(c.repeat / unit) }
            if c.repeat % unit > 0 { out += "." + pad(c.repeat % unit, 6) }
        }
    }
}
