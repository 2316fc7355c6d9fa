// The device zone, found as glibc finds it: TZ, else /etc/localtime.
import SchedCalendar

extension ZoneDatabase {
    /// The device zone, found the way glibc's `tzset` finds it.
    ///
    /// `tz` is the value of `TZ`. When non-nil and non-empty it may be:
    /// - `:Area/City` or `Area/City`: the zone file under `directory` (a name whose file exists
    ///   wins over the POSIX reading, as in glibc: `EST5EDT` is the file);
    /// - `:/abs/path` or `/abs/path`: that TZif file, named by the path;
    /// - a POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`, `<+0530>-5:30`), named by the string.
    ///
    /// Otherwise `/etc/localtime` (or `localtimePath`): when it is a symlink its target names the
    /// zone (`…/zoneinfo/Europe/Berlin` → `Europe/Berlin`, read through this database's cache);
    /// a regular file is read afresh each call and named `localtime`; when it does not exist the
    /// zone is UTC, as glibc, `date` and systemd assume. Unknown or corrupt → error, never UTC:
    /// `unknown time zone 'Mars/Olympus': no file /usr/share/zoneinfo/Mars/Olympus`.
    public func deviceZone(tz: String?, localtimePath: String = "/etc/localtime") throws(ZoneError) -> TimeZoneRules {
        if let tz, !tz.isEmpty { return try zone(tz: tz) }
        guard let target = ZoneFileReader.symlinkTarget(localtimePath) else {
            guard ZoneFileReader.exists(localtimePath) else { return .utc }
            return try ZoneDatabase.load(path: localtimePath, name: "localtime")
        }
        let absolute = target.hasPrefix("/") ? target : ZoneDatabase.parentDirectory(of: localtimePath) + "/" + target
        if let name = ZoneDatabase.zoneName(fromPath: absolute), ZoneDatabase.nameProblem(name) == nil,
           ZoneFileReader.exists(directory + "/" + name) {
            return try zone(named: name)
        }
        return try ZoneDatabase.load(path: absolute, name: ZoneDatabase.zoneName(fromPath: absolute) ?? absolute)
    }

    /// The files whose change is a device-zone change, for `tz` (the value of `TZ`) as `deviceZone` reads
    /// it: `localtimePath` when `tz` is unset or empty, the file `TZ` names (absolute, or under
    /// `directory`), none for a POSIX TZ string with rules (`EST5EDT,M3.2.0,M11.1.0`).
    public func deviceZoneFilePaths(tz: String?, localtimePath: String = "/etc/localtime") -> [String] {
        guard let tz, !tz.isEmpty else { return [localtimePath] }
        let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if name.hasPrefix("/") { return [name] }
        return name.contains(",") ? [] : [directory + "/" + name]
    }

    /// A `TZ` value (see `deviceZone`).
    /// Files and POSIX strings are cached too (under keys starting with NUL, which no name has): `TZ` does not change
    /// while a process runs.
    func zone(tz: String) throws(ZoneError) -> TimeZoneRules {
        if tz.hasPrefix(":") {
            let rest = String(tz.dropFirst())
            return rest.hasPrefix("/") ? try zone(atPath: rest) : try zone(named: rest)
        }
        if tz.hasPrefix("/") { return try zone(atPath: tz) }
        if ZoneDatabase.nameProblem(tz) == nil && ZoneFileReader.exists(directory + "/" + tz) {
            return try zone(named: tz)
        }
        do {
            return try cached("\u{0}posix " + tz) { () throws(ZoneError) in try TimeZoneRules(posixTZ: tz) }
        } catch {
            // Digits, `<` or `,` only appear in POSIX strings; anything else was meant as a name.
            if tz.utf8.contains(where: { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ",") }) {
                throw error
            }
            return try zone(named: tz)
        }
    }

    /// The TZif file at absolute `path`, named by the path; parsed once.
    func zone(atPath path: String) throws(ZoneError) -> TimeZoneRules {
        try cached("\u{0}file " + path) { () throws(ZoneError) in try ZoneDatabase.load(path: path, name: path) }
    }

    /// `America/New_York` from `/usr/share/zoneinfo/America/New_York` (also `…/zoneinfo/posix/…`).
    static func zoneName(fromPath path: String) -> String? {
        var components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let root = components.lastIndex(of: "zoneinfo") else { return nil }
        components.removeSubrange(...root)
        if components.first == "posix" { components.removeFirst() }
        return components.isEmpty ? nil : components.joined(separator: "/")
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "" : String(path[..<slash])
    }
}
