import ScheddBus
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
                return try messages.deliver(ConnectorArguments.message(arguments), call: message, version: version,
                                            distributors: distributors, warn: { self.warn(peer: $0, $1) })
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
            // A failure logged where it happened (the storage health, MessageIntake) is not logged here too.
            if !error.alreadyLogged {
                warn(peer: message.sender, "ignored \(message.member) from \(message.sender ?? "?"): \(error.message)")
            }
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

    /// `NewEndpoint`: keeps the endpoint (durable), answers the app's waiting Register calls and
    /// tells the app with `EndpointChanged` when the endpoint is new.
    func newEndpoint(token: String, endpoint: String, sender: String?) throws(PushConnectorError) {
        guard var record = try fromStore({ () throws(StoreError) in try store.registrations.record(token: token) }) else {
            warn(peer: sender, "ignored NewEndpoint for an unknown token from \(sender ?? "?")")
            return
        }
        try checkSender(sender, of: record, member: "NewEndpoint")
        let changed = record.endpoint != endpoint
        if changed {
            record.endpoint = endpoint
            record.updated = host.now()
            let updated = record
            try fromStore(writing: "saving the new push endpoint of \(record.app)", reportingTo: host.storage) {
                () throws(StoreError) in try store.registrations.save(updated)
            }
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
        guard var record = try fromStore({ () throws(StoreError) in try store.registrations.record(token: token) }) else {
            warn(peer: sender, "ignored Unregistered for an unknown token from \(sender ?? "?")")
            return
        }
        try checkSender(sender, of: record, member: "Unregistered")
        host.log(.warning, "\(record.distributor ?? "the distributor") unregistered \(record.app); registering it again")
        record.endpoint = nil
        record.updated = host.now()
        let cleared = record
        try fromStore(writing: "clearing the push endpoint of \(record.app) (its distributor unregistered it)",
                      reportingTo: host.storage) { () throws(StoreError) in try store.registrations.save(cleared) }
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
        guard let distributor = record.distributor, let owner = distributors.owner(of: distributor) else {
            throw PushConnectorError(.accessDenied, "\(member) for \(record.app) from \(sender ?? "?"): the owner of its "
                                     + "distributor \(record.distributor ?? "(none)") is not known")
        }
        guard sender == owner else {
            throw PushConnectorError(.accessDenied, "\(member) for \(record.app) came from \(sender ?? "?"), "
                                     + "not from its distributor \(distributor) (\(owner))")
        }
    }
}
