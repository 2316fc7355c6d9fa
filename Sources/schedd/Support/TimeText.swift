import SchedCalendar
import ScheddService
import Scheduler

/// Reads a time argument (`--base-time`, `clock set`, `add --at`) as CONTRACT §6 allows: RFC 3339
/// (`instant(fromTimeText:in:)`) first, else a systemd timestamp (`2026-03-07 12:00:00 UTC`,
/// `tomorrow 18:00`, `@1767225600`, `+5min`) read at `now` in `zone`, as `systemd-analyze
/// timestamp` reads it.
func instant(fromTimeArgument text: String, now: Instant, in zone: TimeZoneRules) -> Instant? {
    if let instant = instant(fromTimeText: text, in: zone) { return instant }
    guard let micro = try? SystemdTimestamp.parse(text, now: now, zone: zone, isZoneName: Zones.isSystemdZoneName),
          micro <= UInt64(Int64.max) else { return nil }
    return Instant(microseconds: Int64(micro))
}

/// `--base-time` of `calendar` and `timestamp`: a time argument inside `Instant.supportedRange`. Parsed as
/// `instant(fromTimeArgument:now:in:)`; a time outside the range (`@9223372036854.775807`, year 10000 and
/// later) is a usage error naming the range, never a trap further on.
func baseTime(_ text: String, now: Instant, in zone: TimeZoneRules) throws(CommandFailure) -> Instant {
    guard let parsed = instant(fromTimeArgument: text, now: now, in: zone) else {
        throw .usage("--base-time needs an RFC 3339 time or a systemd timestamp (2026-03-07 12:00:00 UTC, "
                     + "@1767225600), not '\(text)'")
    }
    guard parsed.isSupported else {
        throw .usage("--base-time: '\(text)' is outside the supported range \(Instant.supportedRangeDescription)")
    }
    return parsed
}

/// A UTC offset as `±HH:MM` (`±HH:MM:SS` when it has seconds, as some LMT offsets do).
func formatOffset(_ seconds: Int) -> String {
    let a = abs(seconds)
    var s = (seconds < 0 ? "-" : "+") + twoDigits(a / 3600) + ":" + twoDigits(a / 60 % 60)
    if a % 60 != 0 { s += ":" + twoDigits(a % 60) }
    return s
}

func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

private let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

/// `instant` as systemd's `format_timestamp` prints it: `Mon 2026-11-30 09:00:00 CET`, the
/// abbreviation that `date` prints (`UTC` for UTC); with `microseconds` the `TIMESTAMP_US` style
/// (`… 09:00:00.250000 CET`). Beyond year 9999 systemd's `--- XXXX-XX-XX XX:XX:XX`.
func systemdTimestamp(_ instant: Instant, in zone: TimeZoneRules, microseconds: Bool = false) -> String {
    let utc = zone === TimeZoneRules.utc
    if instant.microseconds > Int64(SystemdTimestamp.formattableMax) {
        return "--- XXXX-XX-XX XX:XX:XX" + (microseconds ? ".XXXXXX" : "") + (utc ? " UTC" : "")
    }
    let offset = zone.offset(at: instant)
    let civil = CivilDateTime(instant: instant, offsetSeconds: offset.utcOffsetSeconds)
    var time = civil
    time.microsecond = 0
    var text = weekdayNames[civil.isoWeekday - 1] + " " + time.iso8601(withOffset: nil).replacingFirstT()
    if microseconds {
        let micro = String(civil.microsecond)
        text += "." + String(repeating: "0", count: 6 - micro.count) + micro
    }
    let abbreviation = utc ? "UTC" : offset.abbreviation
    return abbreviation.isEmpty ? text : text + " " + abbreviation
}

extension String {
    fileprivate func replacingFirstT() -> String {
        guard let t = firstIndex(of: "T") else { return self }
        var copy = self
        copy.replaceSubrange(t...t, with: " ")
        return copy
    }
}
