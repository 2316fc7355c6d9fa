import ScheddApps
import ScheddBus
import Scheduler

/// Which app a call belongs to (CONTRACT §8; docs/apps.md "Identity"), and `DeclareApp`.
extension Daemon {
    /// The app of call `m`: the caller's Flatpak sandbox, else the app it declared on this connection
    /// (`DeclareApp`), else its systemd app unit, else the default app. The PID is the bus's
    /// (GetConnectionCredentials), pinned with a pidfd while procfs is read; afterwards the sender must
    /// still be on the bus, so the PID cannot have been recycled in between.
    /// Refusals: AccessDenied (cannot be attributed; a sandboxed app naming another), InvalidArgument
    /// (a declared id that breaks the rule).
    func callerApp(_ m: BusMessage, declaring declared: String? = nil) throws(ServiceFailure) -> CallerApp {
        let sender = m.sender
        let declaredID = declared ?? sender.flatMap { declaredApps[$0] }
        let facts: ProcessFacts
        do {
            let creds = try m.senderCredentials()
            guard let pid = creds.pid else {
                throw CallerIdentityError(.unattributable, "the bus did not report the caller's process id")
            }
            facts = try ProcessInspector.facts(pid: pid, callerUID: creds.euid, stillConnected: { [unowned self] in
                guard let sender else { return true }
                return senderIsConnected(sender)
            })
        } catch let error as CallerIdentityError {
            throw ServiceFailure(error)
        } catch let error as BusError {
            throw ServiceFailure(accessDenied: "cannot verify the caller (\(error.detail)), so no app can be attributed")
        } catch {
            throw ServiceFailure(accessDenied: "\(error)")
        }
        do {
            return try CallerIdentity.resolve(facts, declared: declaredID)
        } catch {
            throw ServiceFailure(error)
        }
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
        guard let sender = m.sender else { throw ServiceFailure(.usage, "DeclareApp needs a sender") }
        if app.isEmpty {
            declaredApps[sender] = nil
            return identityJSON(try callerApp(m))
        }
        let resolved = try callerApp(m, declaring: app)
        if !resolved.sandboxed { declaredApps[sender] = app }
        return identityJSON(resolved)
    }

    func identityJSON(_ app: CallerApp) -> String {
        JSONValue.object([JSONMember("app", .string(app.id.rawValue)), JSONMember("source", .string(app.source.rawValue)),
                          JSONMember("sandboxed", .bool(app.sandboxed))]).serialized()
    }

    /// Whether `name` (a unique name) still has an owner: asks the bus daemon, bounded to 1 s.
    func senderIsConnected(_ name: String) -> Bool {
        let method = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "NameHasOwner")
        return (try? bus.call(method, timeoutMicroseconds: 1_000_000, { m throws(BusError) in try m.append(name) },
                              read: { m throws(BusError) in try m.readBool() })) ?? false
    }

    /// Forgets the declared app of connections that left the bus (NameOwnerChanged of a unique name).
    func watchDepartedCallers() throws(BusError) {
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged'") { [unowned self] m in
            guard let name = try? m.readString(), name.hasPrefix(":"), declaredApps[name] != nil,
                  (try? m.readString()) != nil, let newOwner = try? m.readString(), newOwner.isEmpty else { return }
            declaredApps[name] = nil
        }
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
