import Glibc
import ScheddApps
import ScheddBus
import ScheddPush
import ScheddService
import Scheduler

/// The identity part (CONTRACT §8; docs/apps.md "Identity"): owns who a caller is — the caller check
/// of `--allow-group` (bus-verified uid, group database), the app a call belongs to, and the apps
/// declared with `DeclareApp` per connection (forgotten when the connection leaves the bus).
///
/// The dispatcher (BusService) calls only `refusal(of:)`, `resolve(_:_:)` and `declare(_:app:_:)`;
/// `resolve` and `declare` answer through a completion, so their inside may become asynchronous (the
/// isolation issue: credentials asked asynchronously and cached per unique name) without a change to
/// the dispatcher. Today they answer at once, before returning.
final class Identity {
    private let bus: BusConnection
    private let logger: Logger
    /// The caller check (`--allow-group`, default with `--bus system`); nil serves every caller.
    let callerPolicy: CallerPolicy?
    /// Group-database lookups of callers' uids (cached) and the rate limit of refusal log lines.
    private let groupMembership = GroupMembership()
    private var refusalLog = RateLimitedLog()
    /// Apps declared with `DeclareApp`, by the caller's unique bus name.
    private var declaredApps: [String: String] = [:]

    init(bus: BusConnection, logger: Logger, callerPolicy: CallerPolicy?) {
        self.bus = bus; self.logger = logger; self.callerPolicy = callerPolicy
    }

    /// Starts forgetting the declared app of connections that leave the bus (NameOwnerChanged).
    func start() throws(BusError) {
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged'") { [unowned self] m in
            guard let name = try? m.readString(), name.hasPrefix(":"), declaredApps[name] != nil,
                  (try? m.readString()) != nil, let newOwner = try? m.readString(), newOwner.isEmpty else { return }
            declaredApps[name] = nil
        }
    }

    /// Nil when the sender of `message` may call; else the AccessDenied message (logged, rate-limited).
    /// The uid is the bus-verified one, the groups come from the group database (CallerPolicy). A sender
    /// whose credentials cannot be read is refused.
    func refusal(of message: BusMessage) -> String? {
        guard let policy = callerPolicy else { return nil }
        let denial: String?
        var caller: BusCredentials?
        do {
            let creds = try message.senderCredentials()
            caller = creds
            denial = policy.denial(euid: creds.euid, groups: groupMembership.groups(of: creds.euid))
        } catch {
            denial = "cannot verify the caller (\(error.detail)); only root and group '\(policy.groupName)' may call"
        }
        if let denial, let line = refusalLog.line(for: caller?.euid ?? uid_t.max, "refused \(message.member)"
                                                  + (caller?.pid.map { " from pid \($0)" } ?? "") + ": \(denial)") {
            logger.warning(line)
        }
        return denial
    }

    /// The app `call` acts for, handed to `done` (now, or later).
    func resolve(_ call: BusDeferredCall, _ done: @escaping (Result<Caller, ServiceFailure>) -> Void) {
        guard let m = call.message else { return done(.failure(ServiceFailure(.usage, "the call was answered already"))) }
        do throws(ServiceFailure) {
            let app = try callerApp(m)
            done(.success(Caller(app: app.id.rawValue, sandboxed: app.sandboxed)))
        } catch {
            done(.failure(error))
        }
    }

    /// `DeclareApp(s app) → s identity`: the calls that follow on this connection act for `app` ("" goes
    /// back to the caller's own identity). Answers `{"app","source","sandboxed"}` as now in force.
    func declare(_ call: BusDeferredCall, app: String, _ done: @escaping (Result<String, ServiceFailure>) -> Void) {
        guard let m = call.message, let sender = m.sender else {
            return done(.failure(ServiceFailure(.usage, "DeclareApp needs a sender")))
        }
        do throws(ServiceFailure) {
            if app.isEmpty {
                declaredApps[sender] = nil
                return done(.success(Self.identityJSON(try callerApp(m))))
            }
            let resolved = try callerApp(m, declaring: app)
            if !resolved.sandboxed { declaredApps[sender] = app }
            done(.success(Self.identityJSON(resolved)))
        } catch {
            done(.failure(error))
        }
    }

    /// The app of call `m`: the caller's Flatpak sandbox, else the app it declared on this connection
    /// (`DeclareApp`), else its systemd app unit, else the default app. The PID is the bus's
    /// (GetConnectionCredentials), pinned with a pidfd while procfs is read; afterwards the sender must
    /// still be on the bus, so the PID cannot have been recycled in between.
    /// Refusals: AccessDenied (cannot be attributed; a sandboxed app naming another), InvalidArgument
    /// (a declared id that breaks the rule).
    private func callerApp(_ m: BusMessage, declaring declared: String? = nil) throws(ServiceFailure) -> CallerApp {
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

    static func identityJSON(_ app: CallerApp) -> String {
        JSONValue.object([JSONMember("app", .string(app.id.rawValue)), JSONMember("source", .string(app.source.rawValue)),
                          JSONMember("sandboxed", .bool(app.sandboxed))]).serialized()
    }

    /// Whether `name` (a unique name) still has an owner: asks the bus daemon, bounded to 1 s.
    private func senderIsConnected(_ name: String) -> Bool {
        let method = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "NameHasOwner")
        return (try? bus.call(method, timeoutMicroseconds: 1_000_000, { m throws(BusError) in try m.append(name) },
                              read: { m throws(BusError) in try m.readBool() })) ?? false
    }

    /// The app a UnifiedPush registration call acts for (CONTRACT §8): the caller's Flatpak sandbox,
    /// else the declared id, else its app unit, else the default app.
    static func pushApp(of call: BusMessage, declared: String) throws(PushConnectorError) -> String {
        let facts: ProcessFacts
        do {
            let creds = try call.senderCredentials()
            facts = try ProcessInspector.facts(pid: creds.pid ?? 0)
        } catch let error as CallerIdentityError {
            throw PushConnectorError(.invalidArgument, "cannot tell which app is calling: \(error.message)")
        } catch {
            throw PushConnectorError(.invalidArgument, "cannot tell which app is calling: \(error)")
        }
        do {
            return try CallerIdentity.resolve(facts, declared: declared.isEmpty ? nil : declared).id.rawValue
        } catch {
            throw PushConnectorError(.invalidArgument, "app: \(error.message)")
        }
    }
}

extension ServiceFailure {
    /// Each caller-identity error kind to its D-Bus name.
    init(_ error: CallerIdentityError) {
        switch error.kind {
        case .invalidAppID: self.init(.invalidArgument, error.message)
        case .sandboxed, .unattributable: self.init(accessDenied: error.message)
        }
    }
}
