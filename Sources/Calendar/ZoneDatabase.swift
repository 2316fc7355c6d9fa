// STUB (to be replaced by the zoneinfo implementation): knows only UTC.

/// Why a zone could not be loaded.
public struct ZoneError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The system zoneinfo database (TZif files under `TZDIR` or `/usr/share/zoneinfo`).
///
/// Each zone file is parsed at most once per process: `shared` caches every zone it loads.
public final class ZoneDatabase: Sendable {
    /// The process-wide database rooted at `TZDIR`, else `/usr/share/zoneinfo`.
    public static let shared = ZoneDatabase()

    public init(directory: String? = nil) {}

    /// The zone with IANA name `name` (`Europe/Berlin`, `UTC`). Unknown or corrupt → error, never UTC.
    public func zone(named name: String) throws(ZoneError) -> TimeZoneRules {
        if name == "UTC" { return .utc }
        throw ZoneError("unknown time zone '\(name)'")
    }

    /// The device zone: `tz` (the value of `TZ`: an IANA name, `:Area/City` or a POSIX TZ string)
    /// when non-nil and non-empty, else the zone `/etc/localtime` (or `localtimePath`) points to.
    public func deviceZone(tz: String?, localtimePath: String = "/etc/localtime") throws(ZoneError) -> TimeZoneRules {
        .utc
    }
}
