import Glibc
import SchedCalendar
import SystemZones
import ScheddSystem

/// Zone lookups for the command line: `--tz ZONE`, else the device zone (`TZ`, else /etc/localtime).
enum Zones {
    /// The zone named `name`; an unknown name is rejected input (exit 1) naming the option, with the
    /// closest zone name when one is near (`--tz: unknown zone 'Europe/Berln' (did you mean
    /// Europe/Berlin?)`).
    static func named(_ name: String, option: String = "--tz") throws(CommandFailure) -> TimeZoneRules {
        do {
            return try ZoneDatabase.shared.zone(named: name)
        } catch {
            let directory = ZoneDatabase.shared.directory
            guard !FileSystem.exists(directory + "/" + name) || name.hasPrefix("/") else {
                throw .rejected("\(option): \(error.message)")
            }
            let hint = closestMatch(to: name, among: zoneNames(in: directory))
                .map { " (did you mean \($0)?)" } ?? " (a zone name from \(directory), such as Europe/Berlin or UTC)"
            throw .rejected("\(option): unknown zone '\(name)'" + hint)
        }
    }

    /// The zone and link names of the database (its `tzdata.zi`, else `zone1970.tab`), for hints.
    /// O(size of the file); read only when a name was not found.
    static func zoneNames(in directory: String) -> [String] {
        var names: [String] = []
        if let text = readSmallFile(directory + "/tzdata.zi") {
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.count >= 2, words[0] == "Z" { names.append(String(words[1])) }
                if words.count >= 3, words[0] == "L" { names.append(String(words[2])) }
            }
        } else if let text = readSmallFile(directory + "/zone1970.tab") {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let fields = line.split(separator: "\t")
                if fields.count >= 3 { names.append(String(fields[2])) }
            }
        }
        return names
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

    /// systemd's `timezone_is_valid()` (`ZoneDatabase.systemdAcceptsZoneName`).
    static func isSystemdZoneName(_ name: String) -> Bool { ZoneDatabase.systemdAcceptsZoneName(name) }
}
