/// The app id a desktop launcher encodes in the systemd unit it starts an app in, read from
/// `/proc/PID/cgroup` (systemd.io "Desktop Environment Integration", XDG standardization for
/// applications; xdg-desktop-portal's host app info reads it the same way).
///
/// systemd's naming: `app[-<launcher>]-<ApplicationID>[@<RANDOM>].service` and
/// `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope` (slices as scopes), the id escaped as
/// `systemd-escape` does (`-` → `\x2d`), so a literal `-` only separates the parts. `LAUNCHER` is
/// alphanumeric (`gnome`, `KDE`, `flatpak`, `schedd`), `RANDOM` alphanumeric; an `@` instance is any
/// non-empty unit-name text (`@autostart`: systemd's XDG autostart generator). Also read: the older
/// forms `app-<launcher>-<ApplicationID>-<RANDOM>.service` (the spec before 2020) and
/// `…-autostart.service` (systemd < 248's generator, gnome-session).
///
/// | unit | app id |
/// |---|---|
/// | `app-gnome-org.gnome.Terminal-12345.scope` | `org.gnome.Terminal` |
/// | `app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope` | `com.obsproject.Studio` |
/// | `app-flatpak-org.mozilla.firefox-1234.scope` | `org.mozilla.firefox` |
/// | `app-gnome-org.gnome.Terminal-92502.slice` | `org.gnome.Terminal` |
/// | `app-org.gnome.Nautilus@abc.service` | `org.gnome.Nautilus` |
/// | `app-KDE-org.kde.dolphin@8f2a.service` | `org.kde.dolphin` |
/// | `app-schedd-org.example.my\x2dapp@0123abcd.service` | `org.example.my-app` (schedd's own, TransientUnitLauncher) |
/// | `app-org.kde.amarok.service` | `org.kde.amarok` |
/// | `app-org.gnome.Evince@autostart.service` | `org.gnome.Evince` |
/// | `app-gnome-org.gnome.Evolution\x2dalarm\x2dnotify-2437-autostart.service` | `org.gnome.Evolution-alarm-notify` |
/// | `app-gnome-org.gnome.Evince-12345.service` | `org.gnome.Evince` (the older spec) |
/// | `app-gnome-firefox\x2desr-4321.scope`, `app-glib-spice\x2dvdagent-1839.scope` | none: not reverse DNS |
///
/// A launcher that does not escape (`app-gnome-org.example.my-app-42.scope`) is read as the portal's
/// pattern reads it: the parts between launcher and RANDOM joined with `-` (`org.example.my-app`).
/// Only the user manager's units count (the part of the cgroup path below `user@UID.service/`): a
/// system service named `app-….service` is not an app a desktop launched.
public enum SystemdUnit {
    /// The user unit of a process from the text of its `/proc/PID/cgroup`: like `sd_pid_get_user_unit`,
    /// the first component below `user@UID.service/` that is not a `.slice`. The unified hierarchy's
    /// line (`0::/…`) is read first, then the `name=systemd` line of a hybrid/legacy setup.
    /// nil when the process is in no user unit (a terminal outside any app scope, a system service).
    /// O(size of the text).
    public static func userUnit(cgroupFile text: String) -> String? {
        var unified: Substring?
        var legacy: Substring?
        for line in text.split(separator: "\n") {
            // hierarchy-ID:controller-list:cgroup-path (cgroups(7)); the path may itself hold ':'.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { unified = fields[2] }
            else if fields[1] == "name=systemd" { legacy = fields[2] }
        }
        if let unified, let unit = userUnit(cgroupPath: unified) { return unit }
        if let legacy, let unit = userUnit(cgroupPath: legacy) { return unit }
        return nil
    }

    /// The user unit in one cgroup path (`/user.slice/user-1000.slice/user@1000.service/app.slice/X.scope/…` → `X.scope`).
    public static func userUnit(cgroupPath path: Substring) -> String? {
        let components: [Substring] = path.split(separator: "/")
        guard let manager = components.firstIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") }) else {
            return nil
        }
        for component in components[(manager + 1)...] where !component.hasSuffix(".slice") { return String(component) }
        return nil
    }

    /// The app id encoded in a unit name (see the table), validated; nil when the unit is no app unit.
    /// O(length of the name).
    public static func appID(unitName unit: String) -> AppID? {
        guard unit.hasPrefix("app-") else { return nil }
        let rest = Substring(unit.dropFirst(4))
        var parts: [Substring]
        if let body = rest.removingSuffix(".scope") ?? rest.removingSuffix(".slice") {
            parts = body.split(separator: "-", omittingEmptySubsequences: false)
            // `-RANDOM` (alphanumeric, possibly empty) after the id.
            guard parts.count >= 2, let random = parts.popLast(), random.allSatisfy(isAlphanumeric) else { return nil }
        } else if let body = rest.removingSuffix(".service") {
            if let at = body.lastIndex(of: "@") {
                let instance = body[body.index(after: at)...]
                guard !instance.isEmpty, instance.allSatisfy(isUnitNameCharacter) else { return nil }
                parts = body[..<at].split(separator: "-", omittingEmptySubsequences: false)
            } else {
                parts = body.split(separator: "-", omittingEmptySubsequences: false)
                if parts.count >= 2 && parts.last == "autostart" { parts.removeLast() }
                // The older `-RANDOM.service`: an alphanumeric last part after the id (with a launcher
                // before it, or after a part that holds a '.', so that it cannot be the id itself).
                if parts.count >= 2, let last = parts.last, !last.isEmpty, last.allSatisfy(isAlphanumeric),
                   parts.count >= 3 || parts[0].contains(".") {
                    parts.removeLast()
                }
            }
        } else {
            return nil
        }
        // `LAUNCHER-`: an alphanumeric first part before the id (an app id always holds a '.').
        if parts.count >= 2, !parts[0].isEmpty, parts[0].allSatisfy(isAlphanumeric) { parts.removeFirst() }
        let escaped = parts.joined(separator: "-")
        guard !escaped.isEmpty, let text = unescape(Substring(escaped)) else { return nil }
        return try? AppID(validating: text)
    }

    /// systemd's unit-name escaping of one name component (`systemd-escape`, `unit_name_escape`): ASCII
    /// letters, digits, `:`, `_` and `.` (not first) stay; every other byte, `-` and `\` included,
    /// becomes `\xNN` (lowercase hex). `org.example.my-app` → `org.example.my\x2dapp`. O(length).
    public static func escape(_ text: String) -> String {
        var out = ""
        for (i, byte) in text.utf8.enumerated() {
            let c = Character(Unicode.Scalar(byte))
            let plain = (byte < 0x80 && (c.isLetter || c.isNumber)) || c == ":" || c == "_" || (c == "." && i > 0)
            if plain { out.append(c) } else {
                let hex = String(byte, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// What a unit name may hold besides the type suffix (systemd's VALID_CHARS: `0-9A-Za-z:-_.\`).
    private static func isUnitNameCharacter(_ c: Character) -> Bool {
        isAlphanumeric(c) || c == ":" || c == "-" || c == "_" || c == "." || c == "\\"
    }

    /// Undoes systemd's unit-name escaping (`\x2d` → `-`); nil for a malformed escape or non-UTF-8 result.
    static func unescape(_ text: Substring) -> String? {
        guard text.contains("\\") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "\\") else { bytes.append(byte); continue }
            guard utf8.popFirst() == UInt8(ascii: "x"), utf8.count >= 2,
                  let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            utf8 = utf8.dropFirst(2)
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isAlphanumeric(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber)
    }
}

extension Substring {
    func removingSuffix(_ suffix: String) -> Substring? {
        hasSuffix(suffix) ? dropLast(suffix.count) : nil
    }
}
