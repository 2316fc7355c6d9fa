/// Words people write for a calendar that systemd's grammar (systemd.time(7)) does not have, with
/// what to write instead — for "did you mean" in the parser's "unknown word" error. Only words that
/// `systemd-analyze calendar` refuses (systemd 252: `weekdays`, `weekends`, `workdays`, `everyday`,
/// `mondays`, `noon`, `midnight` all fail to parse), so a hint never shadows a valid spec.
///
/// `weekdays 09:30` → `unknown word 'weekdays' (not a weekday, shorthand, number or '*'; did you mean
/// Mon..Fri?) at offset 0`. Cost: one dictionary lookup of the lowercased word, on the error path.
enum CalendarWordHints {
    static let replacements: [String: String] = [
        "weekday": "Mon..Fri", "weekdays": "Mon..Fri", "workday": "Mon..Fri", "workdays": "Mon..Fri",
        "businessday": "Mon..Fri", "businessdays": "Mon..Fri",
        "weekend": "Sat,Sun", "weekends": "Sat,Sun",
        "everyday": "daily", "midnight": "00:00", "noon": "12:00", "midday": "12:00",
        "mondays": "Mon", "tuesdays": "Tue", "wednesdays": "Wed", "thursdays": "Thu", "fridays": "Fri",
        "saturdays": "Sat", "sundays": "Sun",
    ]

    /// What to write instead of `word` (any case), or nil.
    static func suggestion(for word: String) -> String? {
        replacements[word.lowercased()]
    }

    /// `; did you mean X?` for `word`, or "".
    static func hint(for word: String) -> String {
        suggestion(for: word).map { "; did you mean \($0)?" } ?? ""
    }
}
