/// The rules of one time zone: its UTC offsets over all of time.
///
/// Built from a TZif file (`init(tzif:name:)`, RFC 8536 v1–v4) or a POSIX TZ string
/// (`init(posixTZ:)`). Structure: a table of transitions, sorted, whose first entry is a sentinel
/// at `Int64.min` carrying local time type 0 (RFC 8536: the type in force before the first
/// transition), so a binary search always lands on an entry; and, for instants at or after the
/// last transition, the TZif footer's POSIX rule, evaluated year by year (exact to the year
/// 292,000 and beyond).
///
/// Leap seconds: schedd's `Instant` is POSIX time (no leap seconds), so a `right/` zone's
/// transition times are mapped to POSIX time by subtracting the leap correction in force;
/// `right/Europe/Berlin` then gives the same offsets as `Europe/Berlin`.
///
/// Immutable and `Sendable`; built once per zone per process by a `ZoneResolver` (SystemZones' `ZoneDatabase`).
public final class TimeZoneRules: Sendable, CustomStringConvertible {
    /// The IANA name (`Europe/Berlin`), the POSIX TZ string, or `UTC`.
    public let name: String
    /// Transition instants in POSIX seconds, strictly ascending; `transitions[0] == Int64.min`.
    let transitions: [Int64]
    /// `offsets[i]` is in force from `transitions[i]` until the next transition.
    let offsets: [ZoneOffset]
    /// The rule for instants ≥ `footerStart`; nil when the table alone applies.
    let footer: PosixTZ?
    /// The last table transition (or `Int64.min` without any): the footer applies from here on.
    let footerStart: Int64

    init(name: String, transitions: [Int64], offsets: [ZoneOffset], footer: PosixTZ?) {
        assert(transitions.first == Int64.min && transitions.count == offsets.count, "sentinel missing")
        self.name = name
        self.transitions = transitions
        self.offsets = offsets
        self.footer = footer
        self.footerStart = transitions.last ?? Int64.min
    }

    /// A zone with one fixed offset.
    public convenience init(name: String, fixedOffset: Int) {
        self.init(name: name, transitions: [Int64.min],
                  offsets: [ZoneOffset(utcOffsetSeconds: fixedOffset, isDST: false, abbreviation: name)], footer: nil)
    }

    /// Coordinated Universal Time.
    public static let utc = TimeZoneRules(name: "UTC", fixedOffset: 0)

    /// The rules of a TZif file's bytes (RFC 8536 v1–v4; the 64-bit block when present).
    ///
    /// Untrusted bytes never trap and cost memory proportional to their size; truncated or
    /// corrupt data throws an error naming the part: `invalid TZif header: bad magic …`,
    /// `invalid TZif data: truncated …`, `invalid TZif footer: …`. O(n) in the file size.
    public convenience init(tzif bytes: some Collection<UInt8>, name: String) throws(ZoneError) {
        var parser = TZifParser(bytes: Array(bytes))
        let data = try parser.parse()
        var transitions: [Int64] = [Int64.min]
        var offsets: [ZoneOffset] = [data.types[0]]
        transitions.reserveCapacity(data.transitions.count + 1)
        offsets.reserveCapacity(data.transitions.count + 1)
        // Both lists ascend (the parser checks it), so the leap record in force is found by walking
        // the leap list alongside the transitions: O(transitions + leaps), never their product.
        var leapIndex = -1  // the last leap record with occurrence <= the current transition, or -1
        for (i, t) in data.transitions.enumerated() {
            var posix = t
            // Leap-second files count leap seconds; remove the correction in force at t.
            while leapIndex + 1 < data.leapSeconds.count, data.leapSeconds[leapIndex + 1].occurrence <= t {
                leapIndex += 1
            }
            if leapIndex >= 0 { posix = t &- data.leapSeconds[leapIndex].correction }
            // A transition at the 64-bit minimum would collide with the sentinel: it only restates
            // what is in force before it, so it replaces the sentinel's type.
            if posix <= transitions[transitions.count - 1] {
                guard transitions.count == 1 else {
                    throw ZoneError("invalid TZif data: transition times not ascending at index \(i)")
                }
                offsets[0] = data.types[data.transitionTypes[i]]
                continue
            }
            transitions.append(posix)
            offsets.append(data.types[data.transitionTypes[i]])
        }
        self.init(name: name, transitions: transitions, offsets: offsets, footer: data.footer)
    }

    /// The rules of a POSIX TZ string such as `EST5EDT,M3.2.0,M11.1.0` or `<+0530>-5:30`
    /// (grammar in `PosixTZ`); named by the string itself.
    public convenience init(posixTZ: String) throws(ZoneError) {
        let rule = try PosixTZ(parsing: posixTZ)
        self.init(name: posixTZ, transitions: [Int64.min], offsets: [rule.std], footer: rule)
    }

    /// The offset in force at `instant`. O(log transitions); O(1) in the footer's range.
    public func offset(at instant: Instant) -> ZoneOffset { offset(atSeconds: instant.seconds) }

    /// The offset in force at POSIX second `seconds`.
    func offset(atSeconds seconds: Int64) -> ZoneOffset {
        if seconds >= footerStart, let o = footer?.offset(atSeconds: seconds) { return o }
        return offsets[tableIndex(atSeconds: seconds)]
    }

    /// Seconds east of UTC at POSIX second `seconds` (`offset(atSeconds:)` without the abbreviation).
    func utcOffset(atSeconds seconds: Int64) -> Int {
        if seconds >= footerStart, let o = footer?.utcOffset(atSeconds: seconds) { return o }
        return offsets[tableIndex(atSeconds: seconds)].utcOffsetSeconds
    }

    /// The index of the last table transition at or before `seconds` (≥ 0 thanks to the sentinel).
    func tableIndex(atSeconds seconds: Int64) -> Int {
        transitions.withUnsafeBufferPointer { t in
            var lo = 0, hi = t.count  // invariant: t[lo] <= seconds < t[hi] (t[0] is the Int64.min sentinel)
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2
                if t[mid] <= seconds { lo = mid } else { hi = mid }
            }
            return lo
        }
    }

    /// The wall-clock reading at `instant`.
    public func localDateTime(at instant: Instant) -> CivilDateTime {
        CivilDateTime(instant: instant, offsetSeconds: offset(at: instant).utcOffsetSeconds)
    }

    public var description: String { name }
}
