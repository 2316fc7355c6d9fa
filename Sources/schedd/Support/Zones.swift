import Glibc
import SchedCalendar

/// Zone lookups for the command line: `--tz ZONE`, else the device zone (`TZ`, else /etc/localtime).
enum Zones {
    /// The zone named `name`; an unknown name is rejected input (exit 1) naming the option.
    static func named(_ name: String, option: String = "--tz") throws(CommandFailure) -> TimeZoneRules {
        do {
            return try ZoneDatabase.shared.zone(named: name)
        } catch {
            throw .rejected("\(option): \(error.message)")
        }
    }

    /// `--tz` when given, else the device zone.
    static func zone(option value: String?, database: ZoneDatabase = .shared) throws(CommandFailure) -> TimeZoneRules {
        if let value { return try named(value) }
        return try device(database: database)
    }

    /// The device zone: `TZ`, else /etc/localtime.
    static func device(database: ZoneDatabase = .shared) throws(CommandFailure) -> TimeZoneRules {
        do {
            return try database.deviceZone(tz: environment("TZ"))
        } catch {
            throw .failure("cannot determine the device time zone: \(error.message)")
        }
    }

    /// The daemon's device zone from the name it reports (`ClockShow`'s `zone`): an IANA name, the
    /// path of a TZif file, a POSIX TZ string or `localtime` (a copied /etc/localtime), read as the
    /// daemon read it, so human output names times as `date` does on the daemon's side. Nil when
    /// this process cannot read it.
    static func daemonZone(named name: String) -> TimeZoneRules? {
        if name == "localtime" { return try? ZoneDatabase.shared.deviceZone(tz: nil) }
        return try? ZoneDatabase.shared.deviceZone(tz: name)
    }

    /// systemd's `timezone_is_valid()`: `name` is made of letters, digits, `-_+/` with no leading,
    /// doubled or trailing `/`, and /usr/share/zoneinfo/NAME is a regular file starting with
    /// `TZif` (systemd reads that directory, not `TZDIR`); `UTC` always is.
    static func isSystemdZoneName(_ name: String) -> Bool {
        if name == "UTC" { return true }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/"), !name.contains("//"),
              name.utf8.allSatisfy({ c in
                  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                      || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
              }) else { return false }
        let fd = open("/usr/share/zoneinfo/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        var magic = [UInt8](repeating: 0, count: 4)
        let n = magic.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4) }
        return n == 4 && magic == Array("TZif".utf8)
    }
}
