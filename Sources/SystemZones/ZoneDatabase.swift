// The system zone database: TZif files under TZDIR or /usr/share/zoneinfo, parsed once and cached.
// SchedCalendar takes zones as values; this target, above it, is where they come from on this machine.
import SchedCalendar
import Synchronization

/// The system zoneinfo database (TZif files under `TZDIR` or `/usr/share/zoneinfo`).
///
/// Each zone file is parsed at most once per process per database: zones are cached by name
/// behind a `Mutex`, and a zone is parsed while the lock is held so that two threads asking for
/// the same new zone never both parse it. Failures are not cached (a zone may be installed later).
/// A lookup of a cached zone is one dictionary access under the lock.
public final class ZoneDatabase: Sendable {
    /// The process-wide database rooted at `TZDIR`, else `/usr/share/zoneinfo`.
    public static let shared = ZoneDatabase()

    /// The root directory of the database, without a trailing slash.
    public let directory: String
    let cache = Mutex<[String: TimeZoneRules]>([:])

    /// A database rooted at `directory`; nil → `TZDIR` when set and non-empty, else `/usr/share/zoneinfo`.
    public init(directory: String? = nil) {
        var dir = directory ?? ZoneFileReader.environment("TZDIR") ?? ""
        if dir.isEmpty { dir = "/usr/share/zoneinfo" }
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.directory = dir
    }

    /// The zone with IANA name `name` (`Europe/Berlin`, `UTC`), read from `directory/name`.
    ///
    /// `UTC` and `Etc/UTC` fall back to built-in UTC when the file is missing (no tzdata installed).
    /// Unknown or corrupt → error, never UTC: `unknown time zone 'Mars/Olympus': no file
    /// /usr/share/zoneinfo/Mars/Olympus`. Names that could leave the directory (absolute, with
    /// `..`, `.` or empty components) are rejected. O(1) once cached; first load O(file size).
    public func zone(named name: String) throws(ZoneError) -> TimeZoneRules {
        // A cached name was checked when it was loaded: one dictionary access (the name check and the
        // path were ~2.5% of a bulk load's instructions, asked once or twice per push). Not for a name
        // starting with NUL: the device zone's entries are cached under such keys, never a valid name.
        if name.utf8.first != 0, let zone = cache.withLock({ $0[name] }) { return zone }
        if let problem = ZoneDatabase.nameProblem(name) {
            throw ZoneError("invalid time zone name '\(name)': \(problem)")
        }
        let path = directory + "/" + name
        return try cached(name) { () throws(ZoneError) in
            // UTC needs no data: without tzdata installed, `UTC` and `Etc/UTC` still work.
            if (name == "UTC" || name == "Etc/UTC") && !ZoneFileReader.exists(path) {
                return name == "UTC" ? .utc : TimeZoneRules(name: name, fixedOffset: 0)
            }
            return try ZoneDatabase.load(path: path, name: name)
        }
    }

    /// The zone cached under `key`, else the result of `load` (run under the lock, then cached).
    func cached(_ key: String, _ load: () throws(ZoneError) -> TimeZoneRules) throws(ZoneError) -> TimeZoneRules {
        try cache.withLock { (zones) throws(ZoneError) -> TimeZoneRules in
            if let zone = zones[key] { return zone }
            let zone = try load()
            zones[key] = zone
            return zone
        }
    }

    /// Whether `name` is a zone of this database that loads without error.
    public func isKnownZone(_ name: String) -> Bool {
        (try? zone(named: name)) != nil
    }

    /// Why `name` is not an acceptable zone name, or nil when it is.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "empty" }
        if name.utf8.count > 255 { return "longer than 255 bytes" }
        if name.hasPrefix("/") { return "absolute path" }
        if name.utf8.contains(0) { return "contains NUL" }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { return "empty path component" }
            if component == "." || component == ".." { return "'\(component)' path component" }
        }
        return nil
    }

    /// Reads and parses the TZif file at `path`, naming the zone `name`.
    static func load(path: String, name: String) throws(ZoneError) -> TimeZoneRules {
        let bytes: [UInt8]
        do {
            bytes = try ZoneFileReader.read(path)
        } catch {
            switch error {
            case .missing: throw ZoneError("unknown time zone '\(name)': no file \(path)")
            case .unreadable(let why): throw ZoneError("time zone '\(name)': cannot read \(path): \(why)")
            }
        }
        do {
            return try TimeZoneRules(tzif: bytes, name: name)
        } catch {
            throw error.prefixed("time zone '\(name)': \(path)")
        }
    }
}
