/// The namespace a call acts in: its app, and on a bus shared by several users (the system bus, kiosk
/// mode) its user too (CONTRACT §8 v3 "a namespace is per user *and* app"; docs/apps.md "A namespace
/// per user and app").
///
/// The key is what the store, the signals and the replies call the app:
///
/// | caller's uid | app `org.example.Kiosk` | key |
/// |---|---|---|
/// | the daemon's own (every caller of a session daemon) | | `org.example.Kiosk` |
/// | root (uid 0) | | `org.example.Kiosk` (the administrator's namespace, shared with the daemon's user) |
/// | any other uid, e.g. 1001 | | `u1001:org.example.Kiosk` |
///
/// An app id never holds `:` (D-Bus well-known-name rules), so a key with a `u<uid>:` prefix cannot be
/// declared by anyone but root (`--app u1001:org.example.Kiosk`; every other caller's declared id is
/// checked as an app id). Pure; O(length).
public enum AppNamespace {
    /// The key of `app` for a caller of `uid`, served by a daemon running as `daemonUID`.
    public static func key(app: AppID, uid: UInt32, daemonUID: UInt32) -> String {
        isAdministrator(uid, daemonUID: daemonUID) ? app.rawValue : "u\(uid):\(app.rawValue)"
    }

    /// Root and the daemon's own user: their calls use the plain app ids, and they may name every
    /// user's namespaces (a key with a `u<uid>:` prefix) and list every app.
    public static func isAdministrator(_ uid: UInt32, daemonUID: UInt32) -> Bool { uid == 0 || uid == daemonUID }

    /// The uid and app of a key: (1001, `org.example.Kiosk`) for `u1001:org.example.Kiosk`, (nil, id) for
    /// a plain app id; nil when it is neither.
    public static func parse(_ key: String) -> (uid: UInt32?, app: AppID)? {
        guard key.hasPrefix("u"), let colon = key.firstIndex(of: ":") else {
            return (try? AppID(validating: key)).map { (nil, $0) }
        }
        let digits = key[key.index(after: key.startIndex)..<colon]
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let uid = UInt32(digits), let app = try? AppID(validating: String(key[key.index(after: colon)...])) else {
            return nil
        }
        return (uid, app)
    }

    /// The app id of a key (`org.example.Kiosk` for `u1001:org.example.Kiosk`): what the notification is
    /// shown as. nil when the key is neither form.
    public static func appID(of key: String) -> AppID? { parse(key)?.app }
}
