import Glibc
import ScheddApps
import ScheddBus
import ScheddSystem

/// Per-user namespaces (CONTRACT §8 v3; docs/apps.md "A namespace per user and app"): on a bus that
/// several users call (the system bus, kiosk mode) a caller's namespace is its uid *and* its app
/// (`AppNamespace.key`): it sees and changes only its own uid's schedules, history and signals. Root
/// and the daemon's own user (the administrators) use the plain app ids and may name another user's
/// namespace (`DeclareApp("u1001:org.example.App")`, `--app u1001:…`) and every app (`--all-apps`).
/// Every caller of a session daemon is the daemon's own user, so there nothing changes.
extension Identity {
    /// The key `app` of a caller of `uid` acts in: the user an administrator declared, else its own.
    func namespaceKey(_ app: CallerApp, uid: uid_t, sender: String?) -> String {
        let owner = sender.flatMap { declaredOwner[$0] } ?? uid
        return AppNamespace.key(app: app.id, uid: owner, daemonUID: CurrentProcess.effectiveUserID)
    }

    /// Whether `uid` may name other users' namespaces and list every app: root and the daemon's own user.
    func isAdministrator(_ uid: uid_t) -> Bool {
        AppNamespace.isAdministrator(uid, daemonUID: CurrentProcess.effectiveUserID)
    }

    /// A declared `text` split into the user it names (nil: the caller's own) and the app id. Only an
    /// administrator may name another user's namespace (`u1001:org.example.App`); for everyone else
    /// `text` is an app id, checked as such by `CallerIdentity`.
    func declaredNamespace(_ text: String, of call: BusMessage) throws(CallerIdentityError) -> (owner: uid_t?, app: String) {
        guard let parsed = AppNamespace.parse(text), let owner = parsed.uid else { return (nil, text) }
        let uid = try caller(of: call).uid
        guard isAdministrator(uid) else {
            throw CallerIdentityError(.sandboxed, Self.otherUsersRefusal(uid, what: "naming \(text)"))
        }
        return (owner, parsed.app.rawValue)
    }

    static func otherUsersRefusal(_ uid: uid_t, what: String) -> String {
        "the caller uid \(uid) sees and changes only its own schedules (each user has its own namespace on this bus); "
            + "only root may name other users' apps, so \(what) is not allowed"
    }
}
