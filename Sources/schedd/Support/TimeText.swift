import SchedCalendar
import ScheddService
import Scheduler

/// A UTC offset as `±HH:MM` (`±HH:MM:SS` when it has seconds, as some LMT offsets do).
func formatOffset(_ seconds: Int) -> String {
    let a = abs(seconds)
    var s = (seconds < 0 ? "-" : "+") + twoDigits(a / 3600) + ":" + twoDigits(a / 60 % 60)
    if a % 60 != 0 { s += ":" + twoDigits(a % 60) }
    return s
}

func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

private let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

/// `instant` as systemd prints timestamps: `Mon 2026-11-30 09:00:00 CET` (microseconds when non-zero).
func systemdTimestamp(_ instant: Instant, in zone: TimeZoneRules) -> String {
    let offset = zone.offset(at: instant)
    let civil = CivilDateTime(instant: instant, offsetSeconds: offset.utcOffsetSeconds)
    var time = civil
    time.microsecond = 0
    var text = weekdayNames[civil.isoWeekday - 1] + " " + time.iso8601(withOffset: nil).replacingFirstT()
    if civil.microsecond != 0 {
        let micro = String(civil.microsecond)
        text += "." + String(repeating: "0", count: 6 - micro.count) + micro
    }
    return text + " " + offset.abbreviation
}

extension String {
    fileprivate func replacingFirstT() -> String {
        guard let t = firstIndex(of: "T") else { return self }
        var copy = self
        copy.replaceSubrange(t...t, with: " ")
        return copy
    }
}
