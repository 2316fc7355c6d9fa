import ScheddApps
import ScheddBus
import Scheduler

/// Which app a call belongs to (CONTRACT §8; docs/apps.md "Identity"), `DeclareApp` and `Subscribe`.
/// The pinning itself is Identity's (Identity.swift); these read what it pinned.
extension Daemon {
    /// The app of call `m` (admitted by `identity`): the caller's Flatpak sandbox, else the app it
    /// declared on this connection (`DeclareApp`), else its systemd app unit, else the default app.
    /// Refusals: AccessDenied (cannot be attributed; a sandboxed app naming another), InvalidArgument
    /// (a declared id that breaks the rule). No bus round trip: a dictionary lookup.
    func callerApp(_ m: BusMessage, declaring declared: String? = nil) throws(ServiceFailure) -> CallerApp {
        do { return try identity.app(of: m, declaring: declared) } catch { throw ServiceFailure(error) }
    }

    /// The app a call acts for; `all` (`ListAllApps`) needs an unsandboxed caller.
    func requireUnsandboxed(_ app: CallerApp, for what: String) throws(ServiceFailure) {
        if app.sandboxed {
            throw ServiceFailure(accessDenied: "the caller is the sandboxed app \(app.id); a sandboxed app sees only "
                                 + "its own schedules, so \(what) is not allowed")
        }
    }

    /// `DeclareApp(s app) → s identity`: the calls that follow on this connection act for `app` ("" goes
    /// back to the caller's own identity). Answers `{"app","source","sandboxed"}` as now in force.
    func declareApp(_ m: BusMessage, _ app: String) throws(ServiceFailure) -> String {
        do { return identityJSON(try identity.declare(app, on: m)) } catch { throw ServiceFailure(error) }
    }

    /// `Subscribe() → s identity` / `SubscribeAllApps() → s identity`: this connection receives the
    /// signals of its app (as `DeclareApp` and the sandbox make it now), or of every app (unsandboxed
    /// callers only), as unicast signals until it leaves the bus. Answers the identity subscribed to.
    func subscribe(_ m: BusMessage, allApps: Bool) throws(ServiceFailure) -> String {
        let caller = try callerApp(m)
        if allApps { try requireUnsandboxed(caller, for: "receiving every app's signals") }
        guard let sender = m.sender else { throw ServiceFailure(.usage, "Subscribe needs a sender") }
        if let refusal = subscriptions.subscribe(sender, app: allApps ? nil : caller.id.rawValue) {
            throw ServiceFailure(.invalidArgument, refusal)
        }
        var json = identityFields(caller)
        json.append(JSONMember("allApps", .bool(allApps)))
        return JSONValue.object(json).serialized()
    }

    func identityJSON(_ app: CallerApp) -> String { JSONValue.object(identityFields(app)).serialized() }

    private func identityFields(_ app: CallerApp) -> [JSONMember] {
        [JSONMember("app", .string(app.id.rawValue)), JSONMember("source", .string(app.source.rawValue)),
         JSONMember("sandboxed", .bool(app.sandboxed))]
    }
}

extension ServiceFailure {
    init(_ error: CallerIdentityError) {
        switch error.kind {
        case .invalidAppID: self.init(.invalidArgument, error.message)
        case .sandboxed, .unattributable: self.init(accessDenied: error.message)
        }
    }

    /// org.freedesktop.DBus.Error.AccessDenied with `message`.
    init(accessDenied message: String) {
        self.init(.usage, message)
        accessDenied = true
    }
}
