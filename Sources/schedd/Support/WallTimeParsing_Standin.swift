// STAND-IN: delete when Sources/Calendar/WallTimeParsing.swift lands from branch `payload`;
// `parseTimeText` is the only call site.
import SchedCalendar
import Scheduler

/// Parses `YYYY-MM-DD[T| ]HH:MM[:SS[.ffffff]]` optionally followed by `Z` or `±HH:MM`:
/// without an offset it is a floating wall time, with one a fixed instant. A bare `YYYY-MM-DD`
/// is midnight. Nil when malformed or out of range.
func parseTimeText(_ text: String) -> OneShotTime? {
    let b = Array(text.utf8)
    var i = 0
    func number(_ width: Int) -> Int? {
        guard i + width <= b.count else { return nil }
        var v = 0
        for k in i..<i + width {
            guard (0x30...0x39).contains(b[k]) else { return nil }
            v = v * 10 + Int(b[k] - 0x30)
        }
        i += width
        return v
    }
    func take(_ c: Character) -> Bool {
        if i < b.count, b[i] == c.asciiValue! { i += 1; return true }
        return false
    }
    guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2) else { return nil }
    var civil = CivilDateTime(year: year, month: month, day: day)
    if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") {
        i += 1
        guard let hour = number(2), take(":"), let minute = number(2) else { return nil }
        civil.hour = hour; civil.minute = minute
        if take(":") {
            guard let second = number(2) else { return nil }
            civil.second = second
            if take(".") {
                var digits = 0, micro = 0
                while i < b.count, (0x30...0x39).contains(b[i]) {
                    if digits < 6 { micro = micro * 10 + Int(b[i] - 0x30) }
                    digits += 1; i += 1
                }
                guard digits > 0 else { return nil }
                for _ in digits..<6 where digits < 6 { micro *= 10 }
                civil.microsecond = micro
            }
        }
    }
    guard civil.isValid else { return nil }
    if i == b.count { return .floating(civil, zone: nil) }
    if take("Z") || take("z") {
        return i == b.count ? .fixed(civil.instant(offsetSeconds: 0), offsetSeconds: 0) : nil
    }
    guard i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
    let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
    i += 1
    guard let oh = number(2), take(":"), let om = number(2), i == b.count, oh < 24, om < 60 else { return nil }
    let offset = sign * (oh * 3600 + om * 60)
    return .fixed(civil.instant(offsetSeconds: offset), offsetSeconds: offset)
}
