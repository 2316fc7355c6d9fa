import ScheddApps
import ScheddDesktop
import Scheduler

/// What a sandboxed caller's pushes may link to and show (CONTRACT §8 "Nothing of the host";
/// docs/apps.md): http, https and the `x-scheme-handler/…` schemes of the app's own desktop file
/// (`SandboxedPushRules`). The desktop file is read once per connection (the first push of a
/// sandboxed connection; at most one small file per XDG data dir) and forgotten when the connection
/// leaves the bus; unsandboxed callers get none (they are not checked).
extension Identity {
    func pushRules(for app: CallerApp, sender: String?) -> SandboxedPushRules? {
        guard app.sandboxed else { return nil }
        if let sender, let known = sandboxRules[sender], known.app == app.id { return known.rules }
        let rules = Self.pushRules(app: app.id.rawValue, in: AppDirectory.fromEnvironment())
        if let sender, pinned[sender] != nil { sandboxRules[sender] = (app.id, rules) }
        return rules
    }

    /// The rules for `app` from its desktop file in `directory` (http and https only when it has none).
    static func pushRules(app: String, in directory: AppDirectory) -> SandboxedPushRules {
        SandboxedPushRules(declaredSchemes: directory.entry(for: app)?.uriSchemes ?? [])
    }
}
