import SchedCalendar

/// The checks of the fake-clock methods' arguments (CONTRACT §9, "No input crashes it"): the clock
/// stays inside `Instant.supportedRange`, and a value outside it is rejected naming the range.
public enum ClockArguments {
    /// `ClockSet`: the instant `text` denotes (nil when it does not parse) must lie in the range.
    public static func setTarget(_ parsed: Instant?, text: String) throws(ArgumentRejection) -> Instant {
        guard let target = parsed else {
            throw ArgumentRejection("clock set: expected YYYY-MM-DDTHH:MM[:SS] with optional Z or ±HH:MM, not '"
                                    + shown(text) + "'")
        }
        guard target.isSupported else {
            throw ArgumentRejection("clock set: \(target.rfc3339) is outside the supported range "
                                    + Instant.supportedRangeDescription)
        }
        return target
    }

    /// `ClockAdvance`: `now` + `microseconds`, which must not pass the end of the range (checked
    /// arithmetic: a span of `UInt64.max` or two of 2^62 µs are errors, not overflows).
    public static func advanceTarget(from now: Instant, microseconds: UInt64) throws(ArgumentRejection) -> Instant {
        let limit = Instant.supportedRange.upperBound
        guard microseconds <= UInt64(Int64.max), let target = now.checkedAdding(microseconds: Int64(microseconds)),
              target <= limit else {
            let room = UInt64(max(0, limit.microseconds - now.microseconds))
            throw ArgumentRejection("clock advance: a span of \(microseconds) µs from \(now.rfc3339) passes the end "
                                    + "of the supported range \(Instant.supportedRangeDescription) "
                                    + "(at most \(room) µs from now)")
        }
        return target
    }

    /// At most 64 bytes of `text`, so an error never quotes a megabyte back.
    static func shown(_ text: String) -> String {
        text.utf8.count > 64 ? String(decoding: Array(text.utf8.prefix(64)), as: UTF8.self) + "…" : text
    }
}
