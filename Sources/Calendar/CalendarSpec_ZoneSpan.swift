/// A stretch of time over which a zone's offset does not change: `[from, until)` in POSIX seconds.
///
/// The elapse search normalizes wall times dozens of times per elapse, nearly always within one
/// such stretch; `WallClock` keeps the last one so that most lookups are two comparisons.
struct OffsetSpan {
    var from: Int64
    var until: Int64
    var utcOffset: Int
    var isDST: Bool

    /// An empty span: every lookup misses.
    static let empty = OffsetSpan(from: 0, until: 0, utcOffset: 0, isDST: false)

    @inline(__always) func contains(_ t: Int64) -> Bool { t >= from && t < until }
}

extension TimeZoneRules {
    /// The span of constant offset that contains `seconds`, from the transition table or, past its
    /// end, from the footer rule's changes of the surrounding years. Agrees with `offset(at:)`.
    func offsetSpan(containing seconds: Int64) -> OffsetSpan {
        if seconds >= footerStart, let footer {
            guard let dst = footer.dst else {
                return OffsetSpan(from: footerStart, until: Int64.max, utcOffset: footer.std.utcOffsetSeconds,
                                  isDST: footer.std.isDST)
            }
            // The rule's changes (as PosixTZ computes them) in the years around `seconds`: the latest at
            // or before it says which offset is in force, the earliest after it ends the span.
            let limit: Int64 = 1 << 52
            let year = civilFromDays(floorDiv(min(max(seconds, -limit), limit), 86_400)).year
            var from = Int64.min, until = Int64.max, inDST = false
            for y in (year - 1)...(year + 1) {
                let start = dst.start.day(in: y) * 86_400 + Int64(dst.startTime) - Int64(footer.std.utcOffsetSeconds)
                let end = dst.end.day(in: y) * 86_400 + Int64(dst.endTime) - Int64(dst.offset.utcOffsetSeconds)
                // Within a year the later change wins a tie, as in PosixTZ.
                for (change, toDST) in start <= end ? [(start, true), (end, false)] : [(end, false), (start, true)] {
                    if change <= seconds {
                        if change >= from { from = change; inDST = toDST }
                    } else {
                        until = min(until, change)
                    }
                }
            }
            let offset = inDST ? dst.offset : footer.std
            return OffsetSpan(from: max(from, footerStart), until: until, utcOffset: offset.utcOffsetSeconds,
                              isDST: offset.isDST)
        }
        let index = tableIndex(atSeconds: seconds)
        let until = index + 1 < transitions.count ? transitions[index + 1] : (footer == nil ? Int64.max : footerStart)
        let offset = offsets[index]
        return OffsetSpan(from: transitions[index], until: max(until, transitions[index] + 1),
                          utcOffset: offset.utcOffsetSeconds, isDST: offset.isDST)
    }
}
