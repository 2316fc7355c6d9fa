/// What glibc's `tzset()` leaves in `tzname[]`, `timezone` and `daylight` for a zone: systemd reads
/// them to accept a local abbreviation after a timestamp (`… CEST`) and to decide whether
/// `systemd-analyze calendar` prints an `(in UTC)` line (`in_utc_timezone()`).
public struct GlibcZoneState: Sendable, Hashable {
    /// `tzname[0]` and `tzname[1]`: the standard and daylight abbreviations.
    public var standardName: String
    public var daylightName: String
    /// `-timezone`: the standard offset, seconds east of UTC.
    public var standardOffset: Int
    /// `daylight != 0`: the zone's rule has a daylight offset different from the standard one.
    public var hasDaylight: Bool

    /// systemd's `in_utc_timezone()`: `timezone == 0 && daylight == 0`.
    public var isUTC: Bool { standardOffset == 0 && !hasDaylight }
}

extension TimeZoneRules {
    /// The state glibc is in after converting `instant` to local time in this zone (`localtime_r`),
    /// or after a bare `tzset()` when `instant` is nil.
    ///
    /// glibc (`tzfile.c`, 2.36): reading a TZif file scans its transitions from the last one back
    /// and takes, for each of standard and daylight time, the abbreviation and offset of the latest
    /// transition to it (daylight falls back to standard); a file without transitions names its
    /// one type. Converting an instant at or after the last transition parses the file's footer
    /// instead, which then names both (a POSIX `TZ` string is all footer). So `Europe/London`
    /// gives GMT/BST with daylight; `Africa/Abidjan` and `Etc/UTC` give UTC-like states with no
    /// `(in UTC)` line, exactly as `systemd-analyze calendar` shows. Converting an instant inside
    /// the table keeps the file's offsets but names the type in force and the next transitions'
    /// (after 1970 in Lord Howe: AEST/+1130). O(transitions) at worst.
    public func glibcState(after instant: Instant? = nil) -> GlibcZoneState {
        if let footer, transitions.count == 1 || (instant.map { $0.seconds >= footerStart } ?? false) {
            let dst = footer.dst?.offset
            return GlibcZoneState(standardName: footer.std.abbreviation, daylightName: dst?.abbreviation ?? footer.std.abbreviation,
                                  standardOffset: footer.std.utcOffsetSeconds,
                                  hasDaylight: dst.map { $0.utcOffsetSeconds != footer.std.utcOffsetSeconds } ?? false)
        }
        if let instant, transitions.count > 1 {
            // `localtime` in the table: the names of the type in force and of the transitions after
            // it, the first of each flavor (glibc's `__tzfile_compute`); offsets stay the file's.
            var standardName: String?, daylightName: String?
            var k = tableIndex(atSeconds: instant.seconds)
            while k < offsets.count && (standardName == nil || daylightName == nil) {
                let o = offsets[k]
                if o.isDST { if daylightName == nil { daylightName = o.abbreviation } }
                else if standardName == nil { standardName = o.abbreviation }
                k += 1
            }
            var state = glibcState(after: nil)
            state.standardName = standardName ?? daylightName ?? ""
            state.daylightName = daylightName ?? ""
            return state
        }
        guard transitions.count > 1 else {
            let only = offsets[0]
            return GlibcZoneState(standardName: only.abbreviation, daylightName: only.abbreviation,
                                  standardOffset: only.utcOffsetSeconds, hasDaylight: false)
        }
        var standard: ZoneOffset?, daylight: ZoneOffset?
        // Index 0 is the sentinel (the type before the first transition), not a transition.
        for i in stride(from: offsets.count - 1, through: 1, by: -1) {
            let o = offsets[i]
            if o.isDST { if daylight == nil { daylight = o } } else if standard == nil { standard = o }
            if standard != nil && daylight != nil { break }
        }
        let std = standard ?? offsets[0]
        let dstOffset = daylight?.utcOffsetSeconds ?? (standard?.utcOffsetSeconds ?? 0)
        return GlibcZoneState(standardName: std.abbreviation, daylightName: (daylight ?? std).abbreviation,
                              standardOffset: standard?.utcOffsetSeconds ?? 0,
                              hasDaylight: (standard?.utcOffsetSeconds ?? 0) != dstOffset)
    }
}
