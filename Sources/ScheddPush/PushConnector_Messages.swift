import ScheddBus
import ScheddCrypto
import Scheduler

/// org.unifiedpush.Connector2 / Connector1: what a distributor calls.
extension PushConnector {
    func handleConnector(_ message: BusMessage, version: Int) -> BusMethodResult {
        if let denial = host.refusal(message) {
            return .failed(name: "org.freedesktop.DBus.Error.AccessDenied", message: denial)
        }
        do throws(PushConnectorError) {
            let arguments: [String: BusVariant]
            if version == 2 {
                do { arguments = try message.readVariantDictionary() } catch {
                    throw PushConnectorError(.invalidArgument, "\(message.member): \(error)")
                }
            } else {
                arguments = try legacyArguments(message)
            }
            switch message.member {
            case "Message":
                return try deliver(ConnectorArguments.message(arguments), call: message, version: version)
            case "NewEndpoint":
                try newEndpoint(token: ConnectorArguments.token(arguments, member: "NewEndpoint"),
                                endpoint: ConnectorArguments.endpoint(arguments), sender: message.sender)
            case "Unregistered":
                try unregistered(token: ConnectorArguments.token(arguments, member: "Unregistered"), sender: message.sender)
            default:
                throw PushConnectorError(.invalidArgument, "unknown method \(message.member)")
            }
            try? message.reply { _ throws(BusError) in }
            return .replied
        } catch {
            warn(peer: message.sender, "ignored \(message.member) from \(message.sender ?? "?"): \(error.message)")
            return .failed(name: error.busName, message: error.message)
        }
    }

    /// Connector1's positional arguments as the a{sv} of Connector2.
    private func legacyArguments(_ message: BusMessage) throws(PushConnectorError) -> [String: BusVariant] {
        do throws(BusError) {
            switch message.member {
            case "Message":
                let token = try message.readString()
                let body = try message.readBytes()
                let id = try message.readString()
                return ["token": .string(token), "message": .bytes(body), "id": .string(id)]
            case "NewEndpoint":
                return ["token": .string(try message.readString()), "endpoint": .string(try message.readString())]
            default:
                return ["token": .string(try message.readString())]
            }
        } catch {
            throw PushConnectorError(.invalidArgument, "\(message.member): \(error)")
        }
    }

    /// `Message`: decrypts with the token's keys and applies the push for its app; replies `{id}` only
    /// once the push is durable. A body that does not decrypt or is not a valid push is logged, counted
    /// on the registration and acknowledged (the same bytes can never succeed, so the push server should
    /// drop them); a storage failure or a full quota is not acknowledged, so the distributor delivers
    /// it again.
    ///
    /// Replays (CONTRACT §8; docs/receiving-pushes.md "Replays"): the SHA-256 of the delivered body — the
    /// encrypted bytes — of every message that decrypted goes into the app's replay window, in the push's
    /// own transaction; a body already there is acknowledged and changes nothing (no tombstone renewed, no
    /// push applied again, no history, no rejection counted). The encrypted bytes, not the plaintext: RFC
    /// 8291 encrypts every message with a fresh salt and key pair, so equal bytes are the same message
    /// delivered again (what a distributor or push server can replay), while the app server sending the same
    /// content again is a new message, judged by the push's own idempotency (CONTRACT §1). Only bodies
    /// that decrypt enter the window: they are authenticated (AES-GCM under the app's auth secret), so a
    /// distributor cannot flush the window with garbage and then replay an old message.
    func deliver(_ message: ConnectorArguments.Message, call: BusMessage, version: Int) throws(PushConnectorError) -> BusMethodResult {
        guard let record = try storage({ () throws(StoreError) in try store.registrations.record(token: message.token) }) else {
            // The spec: a request with a token the connector does not know is ignored.
            warn(peer: call.sender, "ignored a push with an unknown token from \(call.sender ?? "?")")
            return acknowledge(call, id: nil, version: version)
        }
        // Only the distributor the registration is with may deliver for it: any other peer could try
        // forged bodies against this token's keys (CONTRACT §8). Its owner is learned at start and
        // followed on NameOwnerChanged; while unknown, nothing is accepted (the distributor retries).
        guard let distributor = record.distributor, let owner = running[distributor], !owner.isEmpty,
              call.sender == owner else {
            warn(peer: call.sender, "refused a push for \(record.app) from \(call.sender ?? "?"), which is not the owner of "
                 + "its distributor \(record.distributor ?? "(none)")")
            throw PushConnectorError(.accessDenied, "Message for this token is accepted only from its distributor")
        }
        if unconfirmedOwners[distributor] == owner {
            warn(peer: call.sender, "refused a push for \(record.app) from \(owner), the new owner of \(distributor), "
                 + "which has not confirmed a registration yet")
            throw PushConnectorError(.accessDenied, "Message: the new owner of \(distributor) has not confirmed a registration yet")
        }
        let label = "push for \(record.app)" + (message.id.isEmpty ? "" : " (message \(message.id))")
        let digest = SHA256.digest(message.body)
        if try storage({ () throws(StoreError) in try store.pushReplays.contains(app: record.app, digest: digest) }) {
            warn(peer: call.sender, "ignored a replayed \(label) from \(call.sender ?? "?"): the same message was "
                 + "delivered before (replay window of \(record.app))")
            return acknowledge(call, id: message.id, version: version)
        }
        let plaintext: [UInt8]
        do {
            let keys = try WebPushKeys(privateKey: Base64URL.decode(record.privateKey) ?? [],
                                       publicKey: Base64URL.decode(record.publicKey) ?? [],
                                       authSecret: Base64URL.decode(record.authSecret) ?? [])
            plaintext = try WebPush.decrypt(message.body, keys: keys)
        } catch {
            try reject(record, message, "\(label) does not decrypt: \(error.message)", peer: call.sender)
            return acknowledge(call, id: message.id, version: version)
        }
        let now = host.now(), app = record.app
        let remember = { [store] () throws(StoreError) in
            try store.transaction { () throws(StoreError) in try store.pushReplays.record(app: app, digest: digest, at: now) }
        }
        switch host.apply(record.app, plaintext, remember) {
        case .applied(let outcomes):
            host.log(.info, "\(label) applied: \(outcomes)")
            return acknowledge(call, id: message.id, version: version)
        case .rejected(let reason):
            // Authentic but not a valid push: remembered too, so its replay is not counted again.
            try storage(remember)
            try reject(record, message, "\(label) is not a valid push: \(reason)", peer: call.sender)
            return acknowledge(call, id: message.id, version: version)
        case .failed(let reason):
            host.log(.error, "\(label) not applied (the distributor will deliver it again): \(reason)")
            throw PushConnectorError(.storage, reason)
        case .overQuota(let reason):
            host.log(.warning, "\(label) not applied (the distributor will deliver it again): \(reason)")
            throw PushConnectorError(.quotaExceeded, reason)
        }
    }

    private func reject(_ record: PushRegistrationRecord, _ message: ConnectorArguments.Message,
                        _ reason: String, peer: String?) throws(PushConnectorError) {
        warn(peer: peer, "rejected a \(reason)")
        let rejection = PushRejection(at: host.now(), messageID: message.id, reason: reason)
        try storage { () throws(StoreError) in try store.registrations.recordRejection(app: record.app, rejection) }
    }

    /// Replies `{id}` (Connector2; `{}` without an id) or nothing (Connector1).
    private func acknowledge(_ call: BusMessage, id: String?, version: Int) -> BusMethodResult {
        do {
            try call.reply { r throws(BusError) in
                if version == 2 { try r.append(variants: id.map { $0.isEmpty ? [] : [("id", .string($0))] } ?? []) }
            }
            return .replied
        } catch {
            host.log(.warning, "cannot acknowledge a push: \(error)")
            return .replied
        }
    }

    /// `NewEndpoint`: keeps the endpoint (durable), answers the app's waiting Register calls and
    /// tells the app with `EndpointChanged` when the endpoint is new.
    func newEndpoint(token: String, endpoint: String, sender: String?) throws(PushConnectorError) {
        guard var record = try storage({ () throws(StoreError) in try store.registrations.record(token: token) }) else {
            warn(peer: sender, "ignored NewEndpoint for an unknown token from \(sender ?? "?")")
            return
        }
        try checkSender(sender, of: record, member: "NewEndpoint")
        let changed = record.endpoint != endpoint
        if changed {
            record.endpoint = endpoint
            record.updated = host.now()
            let updated = record
            try storage { () throws(StoreError) in try store.registrations.save(updated) }
            host.log(.info, "new push endpoint for \(record.app) from \(record.distributor ?? "?")")
        }
        states[record.app] = .registered
        answerWaiters(token: token)
        if changed { announceEndpoint(record) }
    }

    /// `Unregistered`: a confirmation of schedd's own Unregister, or the distributor dropping the app;
    /// then the app is told (`Unregistered` signal) and registered again with the same token.
    func unregistered(token: String, sender: String?) throws(PushConnectorError) {
        if unregistering.remove(token) != nil { return }
        guard var record = try storage({ () throws(StoreError) in try store.registrations.record(token: token) }) else {
            warn(peer: sender, "ignored Unregistered for an unknown token from \(sender ?? "?")")
            return
        }
        try checkSender(sender, of: record, member: "Unregistered")
        host.log(.warning, "\(record.distributor ?? "the distributor") unregistered \(record.app); registering it again")
        record.endpoint = nil
        record.updated = host.now()
        let cleared = record
        try storage { () throws(StoreError) in try store.registrations.save(cleared) }
        states[record.app] = .registering
        emit("Unregistered", record.app, "the distributor \(record.distributor ?? "?") unregistered the app")
        let now = loop.now(.monotonic)
        if let last = lastReregister[record.app], now &- last < Self.reregisterIntervalMicroseconds {
            states[record.app] = .failed("the distributor unregistered the app twice within a minute; "
                                         + "not registering again until the app asks or a distributor appears")
            return
        }
        lastReregister[record.app] = now
        register(record)
    }

    /// A NewEndpoint/Unregistered must come from the owner of the registration's distributor name (any
    /// peer on the bus could otherwise redirect or drop an app's pushes); while that owner is unknown,
    /// nothing is accepted.
    private func checkSender(_ sender: String?, of record: PushRegistrationRecord, member: String) throws(PushConnectorError) {
        guard let distributor = record.distributor, let owner = running[distributor], !owner.isEmpty else {
            throw PushConnectorError(.accessDenied, "\(member) for \(record.app) from \(sender ?? "?"): the owner of its "
                                     + "distributor \(record.distributor ?? "(none)") is not known")
        }
        guard sender == owner else {
            throw PushConnectorError(.accessDenied, "\(member) for \(record.app) came from \(sender ?? "?"), "
                                     + "not from its distributor \(distributor) (\(owner))")
        }
    }
}
