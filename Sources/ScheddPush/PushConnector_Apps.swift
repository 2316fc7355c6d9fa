import ScheddBus
import Scheduler

/// org.schedd.UnifiedPush1: what apps call (Register, Unregister, List) and the signals they get.
extension PushConnector {
    func handleApp(_ message: BusMessage) -> BusMethodResult {
        if let denial = host.refusal(message) {
            return .failed(name: "org.freedesktop.DBus.Error.AccessDenied", message: denial)
        }
        do throws(PushConnectorError) {
            switch message.member {
            case "Register":
                let declared = (try? message.readString()) ?? ""
                let description = (try? message.readString()) ?? ""
                let app = try host.resolveApp(message, declared).app
                if let sender = message.sender { host.subscribe(sender, app) }
                return try registerApp(app, description: description, call: message)
            case "Unregister":
                let app = try host.resolveApp(message, (try? message.readString()) ?? "").app
                let text = try unregisterApp(app).serialized()
                return reply(message, text)
            case "List":
                // The caller's own registration only; every app's only to an unsandboxed caller of the
                // daemon's uid (CONTRACT §8: keys never reach another app).
                let caller = try host.resolveApp(message, "")
                let records = try fromStore { () throws(StoreError) in
                    caller.seesEveryApp ? try store.registrations.all() : try store.registrations.record(app: caller.app).map { [$0] } ?? []
                }
                let text = JSONValue.array(records.map { rejections.merged($0).json(state: state(of: $0)) }).serialized()
                return reply(message, text)
            default:
                return .failed(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "unknown method \(message.member)")
            }
        } catch {
            return .failed(name: error.busName, message: error.message)
        }
    }

    private func reply(_ message: BusMessage, _ text: String) -> BusMethodResult {
        do {
            try message.reply { r throws(BusError) in try r.append(text) }
            return .replied
        } catch {
            return .failed(name: PushConnectorError.Kind.storage.rawValue, message: "cannot reply: \(error)")
        }
    }

    /// `Register(s app, s description) → s registration`: creates the app's registration (token and
    /// keys, durable) when it has none, registers it with the chosen distributor and answers once the
    /// endpoint is known, the distributor refused, or 10 s passed (then `state` says `registering`
    /// and `EndpointChanged` follows).
    func registerApp(_ app: String, description: String, call: BusMessage) throws(PushConnectorError) -> BusMethodResult {
        let record = try storeRegistration(app, description: description)
        let deadline = loop.now(.monotonic) &+ Self.endpointWaitMicroseconds
        waiters.add(call.deferReply(), token: record.token, deadline: deadline)
        armWaitTimer()
        register(record)
        return .deferred
    }

    /// Register's durable part: the app's stored registration, saved first when it is new (fresh token
    /// and keys) or its description changed. Each save reports to the storage health (a full disk: the
    /// call fails with `.storage`, and the storage health logs it and sets STATUS=/ERRNO=).
    func storeRegistration(_ app: String, description: String) throws(PushConnectorError) -> PushRegistrationRecord {
        guard description.utf8.count <= 100 else {
            throw PushConnectorError(.invalidArgument, "Register: 'description' must be at most 100 bytes, got \(description.utf8.count)")
        }
        if var record = try fromStore({ () throws(StoreError) in try store.registrations.record(app: app) }) {
            if !description.isEmpty && description != record.description {
                record.description = description
                record.updated = host.now()
                let changed = record
                try fromStore(writing: "saving the new description of the push registration of \(app)", reportingTo: host.storage) {
                    () throws(StoreError) in try store.registrations.save(changed)
                }
            }
            return record
        }
        let count = try fromStore { () throws(StoreError) in try store.registrations.all().count }
        guard count < Self.maximumRegistrations else {
            throw PushConnectorError(.invalidArgument, "Register: schedd keeps at most \(Self.maximumRegistrations) "
                                     + "push registrations; unregister an app first")
        }
        let keys: WebPushKeys
        let token: String
        do {
            keys = try WebPushKeys.generate()
            token = try ConnectionToken.generate()
        } catch {
            throw PushConnectorError(.storage, "cannot make keys for \(app): \(error.message)")
        }
        let now = host.now()
        let fresh = PushRegistrationRecord(app: app, token: token, description: description, distributor: nil,
                                           endpoint: nil, privateKey: Base64URL.encode(keys.privateKey),
                                           publicKey: Base64URL.encode(keys.publicKey),
                                           authSecret: Base64URL.encode(keys.authSecret), created: now, updated: now)
        try fromStore(writing: "saving the new push registration of \(app)", reportingTo: host.storage) {
            () throws(StoreError) in try store.registrations.save(fresh)
        }
        host.log(.info, "new push registration for \(app)")
        return fresh
    }

    /// `Unregister(s app) → s registration`: tells the distributor (Distributor2.Unregister), forgets
    /// the registration and its keys, and answers with what was removed.
    func unregisterApp(_ app: String) throws(PushConnectorError) -> JSONValue {
        guard let record = try fromStore({ () throws(StoreError) in try store.registrations.record(app: app) }) else {
            throw PushConnectorError(.notRegistered, "Unregister: \(app) has no push registration")
        }
        try fromStore(writing: "deleting the push registration of \(app)", reportingTo: host.storage) {
            () throws(StoreError) in _ = try store.registrations.delete(app: app)
        }
        let json = rejections.merged(record).json(state: state(of: record))
        rejections.forget(app: app)
        states[app] = nil
        if let distributor = record.distributor {
            unregistering.insert(record.token)
            let method = BusMethod(destination: distributor, path: Self.distributorPath, interface: Self.distributor2,
                                   member: "Unregister")
            let token = record.token
            try? bus.callAsync(method, timeoutMicroseconds: 5_000_000,
                               { m throws(BusError) in try m.append(variants: [("token", .string(token))]) }) { _ in }
        }
        host.log(.info, "\(app) unregistered from pushes")
        return json
    }

    /// The app's state: the last known, else what its stored record says.
    func state(of record: PushRegistrationRecord) -> RegistrationState {
        if let known = states[record.app] { return known }
        return record.endpoint == nil ? .registering : .registered
    }

    /// Answers every app call waiting on `token` with the registration as it is now.
    func answerWaiters(token: String) {
        answer(waiters.take(token: token), token: token)
    }

    /// Answers `calls`, which waited on `token`, with the registration as it is now: its JSON, or the
    /// error its state says (no distributor, the registration failed, or it was removed meanwhile).
    private func answer(_ calls: [BusDeferredCall], token: String) {
        guard !calls.isEmpty else { return }
        let record = try? store.registrations.record(token: token)
        for call in calls {
            guard let record else {
                try? call.replyError(name: PushConnectorError.Kind.notRegistered.rawValue,
                                     message: "the registration was removed meanwhile")
                continue
            }
            let state = state(of: record)
            if case .noDistributor(let reason) = state, record.endpoint == nil {
                try? call.replyError(name: PushConnectorError.Kind.noDistributor.rawValue, message: reason)
            } else if case .failed(let reason) = state {
                try? call.replyError(name: PushConnectorError.Kind.registrationFailed.rawValue, message: reason)
            } else {
                let text = rejections.merged(record).json(state: state).serialized()
                try? call.reply { r throws(BusError) in try r.append(text) }
            }
        }
    }

    /// Answers the waiters whose 10 s passed with the registration as it stands (no endpoint yet).
    func expireWaiters() {
        for (token, calls) in waiters.takeExpired(now: loop.now(.monotonic)) { answer(calls, token: token) }
        armWaitTimer()
    }

    func armWaitTimer() {
        do { try waiters.rearm() } catch {
            host.log(.error, "cannot arm the registration timer: \(error)")
        }
    }

    /// Emits `EndpointChanged(app, registration)`: the registration without its keys.
    func announceEndpoint(_ record: PushRegistrationRecord) {
        let text = rejections.merged(record).json(state: state(of: record), withKeys: false).serialized()
        emit("EndpointChanged", record.app, text)
    }

    /// Sends signal `member(app, second)` to the connections subscribed to `app` only (unicast).
    func emit(_ member: String, _ app: String, _ second: String) {
        for destination in host.signalDestinations(app) {
            do {
                try bus.emitSignal(path: host.objectPath, interface: Self.interface, member: member,
                                   destination: destination) { m throws(BusError) in
                    try m.append(app)
                    try m.append(second)
                }
            } catch {
                host.log(.warning, "cannot send the \(member) signal to \(destination): \(error)")
            }
        }
    }
}
