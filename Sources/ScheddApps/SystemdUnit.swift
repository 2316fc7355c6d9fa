/// The app id a desktop launcher encodes in the systemd unit it starts an app in, read from
/// `/proc/PID/cgroup` (systemd.io "Desktop Environment Integration"; xdg-desktop-portal's host app
/// info reads it the same way).
///
/// Unit names (`LAUNCHER` is optional and alphanumeric, `RANDOM` alphanumeric, possibly empty):
///
/// | unit | app id |
/// |---|---|
/// | `app-gnome-org.gnome.Epiphany-182352.scope` | `org.gnome.Epiphany` |
/// | `app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope` | `com.obsproject.Studio` |
/// | `app-gnome-org.gnome.Terminal-92502.slice` | `org.gnome.Terminal` |
/// | `app-KDE-org.kde.okular@12345.service` | `org.kde.okular` |
/// | `app-org.kde.amarok.service` | `org.kde.amarok` |
/// | `app-gnome-org.gnome.Evolution\x2dalarm\x2dnotify-2437.scope` | `org.gnome.Evolution-alarm-notify` (systemd escapes `-` as `\x2d`) |
/// | `app-glib-spice\x2dvdagent-1839.scope` | none: `spice-vdagent` is not reverse DNS |
///
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
    /// Slices count too (`app-…-RANDOM.slice`, used by some launchers as the app's parent).
    public static func appID(unitName unit: String) -> AppID? {
        guard unit.hasPrefix("app-") else { return nil }
        let rest = Substring(unit.dropFirst(4))
        let escaped: Substring?
        if let body = rest.removingSuffix(".scope") ?? rest.removingSuffix(".slice") {
            escaped = candidate(body, stripRandom: { body in
                // `-RANDOM` (alphanumeric, possibly empty) after the last '-'.
                guard let dash = body.lastIndex(of: "-"),
                      body[body.index(after: dash)...].allSatisfy(isAlphanumeric) else { return nil }
                return body[..<dash]
            })
        } else if let body = rest.removingSuffix(".service") {
            escaped = candidate(body, stripRandom: { body in
                if let at = body.lastIndex(of: "@") {
                    guard body[body.index(after: at)...].allSatisfy(isAlphanumeric) else { return nil }
                    return body[..<at]
                }
                // `-autostart` (systemd < 248 named autostart services this way).
                return body.removingSuffix("-autostart") ?? body
            })
        } else {
            escaped = nil
        }
        guard let escaped, !escaped.isEmpty, let text = unescape(escaped) else { return nil }
        return try? AppID(validating: text)
    }

    /// Tries the name with a launcher prefix (`gnome-`, `KDE-`) first, then without, as the portal's
    /// pattern does; the first reading whose app id is valid wins.
    private static func candidate(_ body: Substring, stripRandom: (Substring) -> Substring?) -> Substring? {
        guard let idPart = stripRandom(body), !idPart.isEmpty else { return nil }
        if let dash = idPart.firstIndex(of: "-"), dash != idPart.startIndex,
           idPart[..<dash].allSatisfy(isAlphanumeric) {
            let withoutLauncher = idPart[idPart.index(after: dash)...]
            if !withoutLauncher.isEmpty, let text = unescape(withoutLauncher), AppID.isValid(text) {
                return withoutLauncher
            }
        }
        return idPart
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
