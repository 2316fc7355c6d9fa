/// Where zone names come from: the engine, the calendar parser and the push decoder resolve every zone
/// through one of these (ARCHITECTURE: `SchedCalendar` reads no file but through a resolver it is given),
/// so an injected database — a test's TZDIR copy, the daemon's — is the one used everywhere.
public protocol ZoneResolver: AnyObject, Sendable {
    /// The zone named `name`, or why not (`unknown time zone 'Mars/Olympus': …`).
    func zone(named name: String) throws(ZoneError) -> TimeZoneRules
    /// Forgets every cached zone, so the next lookups read the zone files again (a tzdata update).
    func flush()
    /// The tzdata release of the files behind this resolver (`2026a`), when known.
    var tzdataVersion: String? { get }
}

extension TimeZoneRules {
    /// The rules as canonical bytes (every transition, offset, DST flag, abbreviation and the POSIX
    /// footer): equal for equal rules, whatever file they came from; different when a tzdata update
    /// changed them. Hashed by the engine (`contentDigest`, SHA-256 through ScheddCrypto): SchedCalendar
    /// does no hashing. O(transitions).
    public var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(transitions.count * 16 + 64)
        func append(_ value: Int64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> Int64(shift))) } }
        func append(_ offset: ZoneOffset) {
            append(Int64(offset.utcOffsetSeconds))
            bytes.append(offset.isDST ? 1 : 0)
            bytes += Array(offset.abbreviation.utf8)
            bytes.append(0)
        }
        for (t, o) in zip(transitions, offsets) {
            append(t)
            append(o)
        }
        if let footer {
            append(footer.std)
            if let dst = footer.dst { bytes += Array(String(describing: dst).utf8) }
        }
        return bytes
    }
}
