import Glibc
import ScheddApps
import ScheddBus

/// Who is calling (CONTRACT §8, docs/apps.md "Identity"): the ONE place where a bus connection becomes
/// a pinned process and then an app, for every caller-facing interface (org.schedd.Scheduler1,
/// org.schedd.UnifiedPush1, the UnifiedPush connector).
///
/// `admit(call, handler)` runs `handler` at once when the sender's connection is already pinned (a
/// dictionary lookup); otherwise it keeps the call (`deferReply`), pins the connection without ever
/// blocking the loop (Identity_Pin.swift: asynchronous GetConnectionCredentials, pidfd, procfs), then
/// runs `handler` and sends its answer — or refuses the call with AccessDenied when the process cannot
/// be pinned. Calls of one connection that arrive while it is being pinned wait for the same pin.
///
/// State, all per unique bus name and dropped when that name leaves the bus (NameOwnerChanged): the
/// pinned facts (bounded by `maxPinned`; beyond it the oldest is forgotten and pinned again when it
/// calls), when the name appeared on the bus (the PID-reuse bound), and the app it declared
/// (`DeclareApp`, bounded by `maxDeclared`: over it DeclareApp is refused). `onDeparture` hooks let
/// others (signal subscriptions) drop their own per-connection state at the same moment.
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
    private(set) var pinned: [String: Pinned] = [:]
    private var pinOrder: [String] = []
    /// Calls waiting for the pin of their connection, by unique name.
    var waiting: [String: [(Result<Pinned, CallerIdentityError>) -> Void]] = [:]
    /// When each unique name appeared on the bus (CLOCK_BOOTTIME µs), from its NameOwnerChanged;
    /// names older than the daemon's own match are absent (the bound is then their first call).
    var appeared: [String: UInt64] = [:]
    /// Declared apps (validated when declared), by unique name.
    private(set) var declared: [String: CallerApp] = [:]
    private var departureHooks: [(String) -> Void] = []

    init(bus: BusConnection) { self.bus = bus }

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
            return .failed(name: accessDeniedErrorName, message: "the call has no sender, so no app can be attributed")
        }
        if pinned[sender] != nil { return handler(call) }
        let kept = call.deferReply()
        pin(sender) { result in
            guard let message = kept.message else { return }
            switch result {
            case .failure(let error):
                try? kept.replyError(name: accessDeniedErrorName, message: error.message)
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

    /// `DeclareApp`: `app` ("" forgets) acts for the calls that follow on `call`'s connection.
    /// Returns the identity now in force. A sandboxed caller's declaration is checked, never kept.
    func declare(_ app: String, on call: BusMessage) throws(CallerIdentityError) -> CallerApp {
        guard let sender = call.sender else { throw CallerIdentityError(.unattributable, "DeclareApp needs a sender") }
        if app.isEmpty {
            declared[sender] = nil
            return try self.app(of: call)
        }
        let resolved = try self.app(of: call, declaring: app)
        if !resolved.sandboxed {
            guard declared[sender] != nil || declared.count < Self.maxDeclared else {
                throw CallerIdentityError(.unattributable, "DeclareApp: schedd keeps the declared app of at most "
                                          + "\(Self.maxDeclared) connections; declare it per call with --app instead")
            }
            declared[sender] = resolved
        }
        return resolved
    }

    /// Calls `hook` with each unique name that leaves the bus.
    func onDeparture(_ hook: @escaping (String) -> Void) { departureHooks.append(hook) }

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
        if pinned.removeValue(forKey: name) != nil, let index = pinOrder.firstIndex(of: name) { pinOrder.remove(at: index) }
        for hook in departureHooks { hook(name) }
    }

    /// Counts for tests and logs.
    var counts: (pinned: Int, declared: Int, appeared: Int) { (pinned.count, declared.count, appeared.count) }
}
