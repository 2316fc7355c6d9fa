import SystemZones
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

    /// systemd's `timezone_is_valid()` (`ZoneDatabase.systemdAcceptsZoneName`).
    static func isSystemdZoneName(_ name: String) -> Bool { ZoneDatabase.systemdAcceptsZoneName(name) }
}
