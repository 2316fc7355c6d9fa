import Glibc
import ScheddApps
import ScheddBus
import ScheddPush
import ScheddService
import ScheddSystem
import Scheduler

/// The identity part (CONTRACT §8; docs/apps.md "Identity"): the ONE place where a bus connection
/// becomes a pinned process and then an app, for every caller-facing interface (org.schedd.Scheduler1,
/// org.schedd.UnifiedPush1, the UnifiedPush connector); also the caller check of `--allow-group`, the
/// apps declared with `DeclareApp` and the signal subscriptions (`Subscribe`).
///
/// `admit(call, handler)` runs `handler` at once when the sender's connection is already pinned (a
/// dictionary lookup); otherwise it keeps the call (`deferReply`), pins the connection without ever
/// blocking the loop (Identity_Pin.swift: asynchronous GetConnectionCredentials, pidfd, procfs), then
/// runs `handler` and sends its answer — or refuses the call with AccessDenied when the process cannot
/// be pinned. Calls of one connection that arrive while it is being pinned wait for the same pin. After
/// `admit`, `refusal(of:)`, `resolve`, `declare`, `subscribe` and `pushCaller` are lookups.
///
/// State, all per unique bus name and dropped when that name leaves the bus (NameOwnerChanged): the
/// pinned facts with the app decided once (at most `maxPinned`; beyond it the oldest is forgotten and
/// pinned again when it calls), when the name appeared on the bus (the PID-reuse bound), the declared
/// app (at most `maxDeclared` connections: DeclareApp beyond it is refused) and the subscriptions.
/// Loop thread only.
final class Identity {
    /// What is known of a pinned connection: from the bus and the kernel, never from the caller.
    struct Pinned {
        var uid: uid_t
        var pid: pid_t
        var facts: ProcessFacts
        /// How the process was pinned (`ProcessFD` of the bus, or pidfd + second query), for logs.
        var method: PinMethod
        /// The app without a declaration (CallerIdentity over `facts`), decided once at pin time.
        var own: Result<CallerApp, CallerIdentityError>

        init(uid: uid_t, pid: pid_t, facts: ProcessFacts, method: PinMethod) {
            self.uid = uid; self.pid = pid; self.facts = facts; self.method = method
            own = Result { () throws(CallerIdentityError) in try CallerIdentity.resolve(facts, declared: nil) }
        }
    }

    enum PinMethod: String {
        case processFD = "the bus's ProcessFD"
        case pidfdRequery = "a pidfd confirmed by a second credentials query"
    }

    /// Connections kept pinned at once (far above the callers of one session).
    static let maxPinned = 4096
    /// Connections with a declared app at once; DeclareApp beyond it is refused.
    static let maxDeclared = 1024

    let bus: BusConnection
    private let logger: Logger
    /// The caller check (`--allow-group`, default with `--bus system`); nil serves every caller.
    let callerPolicy: CallerPolicy?
    /// Group-database lookups of callers' uids (cached) and the rate limit of refusal log lines.
    private let groupMembership = GroupMembership()
    private var refusalLog = RateLimitedLog()
    /// Which connections receive which app's signals.
    let subscriptions: SignalSubscriptions
    private(set) var pinned: [String: Pinned] = [:]
    private var pinOrder: [String] = []
    /// Calls waiting for the pin of their connection, by unique name.
    var waiting: [String: [(Result<Pinned, CallerIdentityError>) -> Void]] = [:]
    /// When each unique name appeared on the bus (CLOCK_BOOTTIME µs), from its NameOwnerChanged;
    /// names older than the daemon's own match are absent (the bound is then their first call).
    var appeared: [String: UInt64] = [:]
    /// Declared apps (validated when declared), by unique name.
    private var declared: [String: CallerApp] = [:]
    /// The push rules of sandboxed connections, by unique name (Identity_Sandbox.swift).
    var sandboxRules: [String: (app: AppID, rules: SandboxedPushRules)] = [:]
    /// The user whose namespace an administrator declared (`DeclareApp("u1001:org.example.App")`), by
    /// unique name (Identity_Namespace.swift).
    var declaredOwner: [String: uid_t] = [:]

    init(bus: BusConnection, logger: Logger, callerPolicy: CallerPolicy?, subscriptions: SignalSubscriptions) {
        self.bus = bus; self.logger = logger; self.callerPolicy = callerPolicy; self.subscriptions = subscriptions
    }

    /// Follows names on the bus: every NameOwnerChanged of a unique name (appear, leave).
    func start() throws(BusError) {
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged'") { [weak self] m in
            guard let self, let name = try? m.readString(), name.hasPrefix(":"),
                  let old = try? m.readString(), let new = try? m.readString() else { return }
            if old.isEmpty && new == name {
                if appeared.count < Self.maxPinned * 2 { appeared[name] = ProcessPin.bootTimeMicroseconds() }
            } else if new.isEmpty {
                depart(name)
            }
        }
    }

    /// Runs `handler` for `call` once its sender is pinned (now, when it already is), and answers the
    /// call with what `handler` returns; a call that cannot be pinned is refused with AccessDenied.
    func admit(_ call: BusMessage, _ handler: @escaping (BusMessage) -> BusMethodResult) -> BusMethodResult {
        guard let sender = call.sender else {
            return .failed(name: ServiceErrorName.accessDenied.rawValue,
                           message: "the call has no sender, so no app can be attributed")
        }
        if pinned[sender] != nil { return handler(call) }
        let kept = call.deferReply()
        pin(sender) { result in
            guard let message = kept.message else { return }
            switch result {
            case .failure(let error):
                try? kept.replyError(name: ServiceErrorName.accessDenied.rawValue, message: error.message)
            case .success:
                switch handler(message) {
                case .replied, .deferred: break
                case .failed(let name, let text): try? kept.replyError(name: name, message: text)
                }
            }
        }
        return .deferred
    }

    /// The pinned facts of `call`'s sender (set once `admit` ran the handler).
    func caller(of call: BusMessage) throws(CallerIdentityError) -> Pinned {
        guard let sender = call.sender, let known = pinned[sender] else {
            throw CallerIdentityError(.unattributable, "the caller is not identified (internal: not admitted)")
        }
        return known
    }

    /// The app of `call` (CallerIdentity's rule over the pinned facts and the declared id). O(1) for
    /// the connection's own or declared app (decided once); a per-call `declaring` is validated.
    func app(of call: BusMessage, declaring: String? = nil) throws(CallerIdentityError) -> CallerApp {
        let known = try caller(of: call)
        if let declaring { return try CallerIdentity.resolve(known.facts, declared: declaring) }
        if let sender = call.sender, let app = declared[sender] { return app }
        return try known.own.get()
    }

    /// Nil when the sender of an admitted `message` may call; else the AccessDenied message (logged,
    /// rate-limited). The uid is the one the bus reported for the pinned connection, the groups come
    /// from the group database (CallerPolicy).
    func refusal(of message: BusMessage) -> String? {
        guard let policy = callerPolicy else { return nil }
        let denial: String?
        var known: Pinned?
        do {
            let pinned = try caller(of: message)
            known = pinned
            denial = policy.denial(euid: pinned.uid, groups: groupMembership.groups(of: pinned.uid))
        } catch {
            denial = "cannot verify the caller (\(error.message)); only root and group '\(policy.groupName)' may call"
        }
        if let denial, let line = refusalLog.line(for: known?.uid ?? uid_t.max, "refused \(message.member)"
                                                  + (known.map { " from pid \($0.pid)" } ?? "") + ": \(denial)") {
            logger.warning(line)
        }
        return denial
    }

    /// The app `call` acts for, handed to `done` (at once: the call was admitted).
    func resolve(_ call: BusDeferredCall, _ done: @escaping (Result<Caller, ServiceFailure>) -> Void) {
        guard let m = call.message else { return done(.failure(ServiceFailure(.usage, "the call was answered already"))) }
        do throws(CallerIdentityError) {
            let app = try app(of: m)
            let uid = try caller(of: m).uid
            done(.success(Caller(app: namespaceKey(app, uid: uid, sender: m.sender), sandboxed: app.sandboxed,
                                 pushRules: pushRules(for: app, sender: m.sender),
                                 mayNameEveryApp: !app.sandboxed && isAdministrator(uid))))
        } catch {
            done(.failure(ServiceFailure(error)))
        }
    }

    /// `DeclareApp(s app) → s identity`: the calls that follow on this connection act for `app` ("" goes
    /// back to the caller's own identity). Answers `{"app","source","sandboxed"}` as now in force. A
    /// sandboxed caller's declaration is checked, never kept.
    func declare(_ call: BusDeferredCall, app: String, _ done: @escaping (Result<String, ServiceFailure>) -> Void) {
        guard let m = call.message, let sender = m.sender else {
            return done(.failure(ServiceFailure(.usage, "DeclareApp needs a sender")))
        }
        do throws(CallerIdentityError) {
            if app.isEmpty {
                declared[sender] = nil
                declaredOwner[sender] = nil
                return done(.success(Self.identityJSON(try self.app(of: m))))
            }
            let (owner, id) = try declaredNamespace(app, of: m)
            let resolved = try self.app(of: m, declaring: id)
            if !resolved.sandboxed {
                declaredOwner[sender] = owner
                guard declared[sender] != nil || declared.count < Self.maxDeclared else {
                    throw CallerIdentityError(.unattributable, "DeclareApp: schedd keeps the declared app of at most "
                                              + "\(Self.maxDeclared) connections; declare it per call with --app instead")
                }
                declared[sender] = resolved
            }
            done(.success(Self.identityJSON(resolved)))
        } catch {
            done(.failure(ServiceFailure(error)))
        }
    }

    /// `Subscribe() → s identity` / `SubscribeAllApps() → s identity`: this connection receives the
    /// signals of its app (as `DeclareApp` and the sandbox make it now), or of every app (unsandboxed
    /// callers only), as unicast signals until it leaves the bus. Answers the identity subscribed to
    /// (`{"app","source","sandboxed","allApps"}`).
    func subscribe(_ call: BusDeferredCall, allApps: Bool, _ done: @escaping (Result<String, ServiceFailure>) -> Void) {
        guard let m = call.message, let sender = m.sender else {
            return done(.failure(ServiceFailure(.usage, "Subscribe needs a sender")))
        }
        do throws(ServiceFailure) {
            let caller: CallerApp
            do { caller = try app(of: m) } catch { throw ServiceFailure(error) }
            if allApps && caller.sandboxed {
                throw ServiceFailure(accessDenied: "the caller is the sandboxed app \(caller.id); a sandboxed app receives "
                                     + "only its own signals, so SubscribeAllApps is not allowed")
            }
            let uid: uid_t
            do { uid = try self.caller(of: m).uid } catch { throw ServiceFailure(error) }
            if allApps && !isAdministrator(uid) {
                throw ServiceFailure(accessDenied: Self.otherUsersRefusal(uid, what: "SubscribeAllApps"))
            }
            if let refusal = subscriptions.subscribe(sender, app: allApps ? nil : namespaceKey(caller, uid: uid, sender: sender)) {
                throw ServiceFailure(.invalidArgument, refusal)
            }
            done(.success(JSONValue.object(Self.identityFields(caller) + [JSONMember("allApps", .bool(allApps))]).serialized()))
        } catch {
            done(.failure(error))
        }
    }

    /// The caller of an admitted UnifiedPush1 call: its app (the declared id when given, checked as
    /// DeclareApp checks it), and whether it may read every app's registrations (an unsandboxed caller
    /// of the daemon's own uid).
    func pushCaller(of call: BusMessage, declared: String) throws(PushConnectorError) -> PushConnector.PushCaller {
        do {
            let known = try caller(of: call)
            let app = try app(of: call, declaring: declared.isEmpty ? nil : declared)
            return PushConnector.PushCaller(app: namespaceKey(app, uid: known.uid, sender: declared.isEmpty ? call.sender : nil),
                                            seesEveryApp: !app.sandboxed && known.uid == CurrentProcess.effectiveUserID)
        } catch {
            switch error.kind {
            case .invalidAppID: throw PushConnectorError(.invalidArgument, "app: \(error.message)")
            case .sandboxed, .unattributable: throw PushConnectorError(.accessDenied, error.message)
            }
        }
    }

    static func identityJSON(_ app: CallerApp) -> String { JSONValue.object(identityFields(app)).serialized() }

    private static func identityFields(_ app: CallerApp) -> [JSONMember] {
        [JSONMember("app", .string(app.id.rawValue)), JSONMember("source", .string(app.source.rawValue)),
         JSONMember("sandboxed", .bool(app.sandboxed))]
    }

    func remember(_ sender: String, _ facts: Pinned) {
        if pinned[sender] == nil {
            if pinned.count >= Self.maxPinned, !pinOrder.isEmpty { pinned[pinOrder.removeFirst()] = nil }
            pinOrder.append(sender)
        }
        pinned[sender] = facts
    }

    private func depart(_ name: String) {
        appeared[name] = nil
        declared[name] = nil
        sandboxRules[name] = nil
        declaredOwner[name] = nil
        subscriptions.drop(name)
        if pinned.removeValue(forKey: name) != nil, let index = pinOrder.firstIndex(of: name) { pinOrder.remove(at: index) }
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
