// systemd's zone-name check (timezone_is_valid), which reads /usr/share/zoneinfo.
import SchedCalendar

extension ZoneDatabase {
    /// systemd's `timezone_is_valid()` (systemd 252, `src/basic/time-util.c`): `UTC`, or a name made
    /// of letters, digits and `-_+/`, without a leading, doubled or trailing `/`, whose file under
    /// /usr/share/zoneinfo (systemd reads that directory, never `TZDIR`) is a regular file starting
    /// with the TZif magic. `Europe/Berlin`, `CET` and `EST` are names; `CEST`, `+05:00` and `utc` are
    /// not. O(length of the name) plus one read of at most 1 MiB.
    public static func systemdAcceptsZoneName(_ name: String) -> Bool {
        if name == "UTC" { return true }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/"), !name.contains("//"),
              name.utf8.allSatisfy({ c in
                  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                      || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
              }) else { return false }
        guard let bytes = try? ZoneFileReader.read("/usr/share/zoneinfo/" + name) else { return false }
        return bytes.starts(with: Array("TZif".utf8))
    }
}
