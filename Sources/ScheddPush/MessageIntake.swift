import SchedCalendar
import ScheddBus
import ScheddCrypto
import Scheduler

/// A distributor's `Message`, from its token to the push applied: the sender check, the replay window, the
/// decryption and the hand-over to the daemon (`PushConnector.Host.apply`), then the acknowledgement.
///
/// Loop thread only. Holds no state of its own: the registrations and the replay window are in the store,
/// who owns a distributor is the connector's `DistributorPresence`, passed with each message, and the
/// rejections are counted by the connector's `RejectionRecorder`.
struct MessageIntake {
    let store: SQLiteScheduleStore
    let host: PushConnector.Host
    /// Where a rejection is counted (at most one write a second per app).
    let rejections: RejectionRecorder

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
    ///
    /// `distributors` says who may deliver for a registration's distributor; `warn` logs what a peer caused
    /// (throttled per peer by the connector).
    func deliver(_ message: ConnectorArguments.Message, call: BusMessage, version: Int, distributors: DistributorPresence,
                 warn: (_ peer: String?, _ text: String) -> Void) throws(PushConnectorError) -> BusMethodResult {
        guard let record = try fromStore({ () throws(StoreError) in try store.registrations.record(token: message.token) }) else {
            // The spec: a request with a token the connector does not know is ignored.
            warn(call.sender, "ignored a push with an unknown token from \(call.sender ?? "?")")
            return acknowledge(call, id: nil, version: version)
        }
        // Only the distributor the registration is with may deliver for it: any other peer could try
        // forged bodies against this token's keys (CONTRACT §8). Its owner is learned at start and
        // followed on NameOwnerChanged; while unknown, nothing is accepted (the distributor retries).
        guard let distributor = record.distributor, let owner = distributors.owner(of: distributor),
              call.sender == owner else {
            warn(call.sender, "refused a push for \(record.app) from \(call.sender ?? "?"), which is not the owner of "
                 + "its distributor \(record.distributor ?? "(none)")")
            throw PushConnectorError(.accessDenied, "Message for this token is accepted only from its distributor")
        }
        if distributors.isUnconfirmed(distributor, owner: owner) {
            warn(call.sender, "refused a push for \(record.app) from \(owner), the new owner of \(distributor), "
                 + "which has not confirmed a registration yet")
            throw PushConnectorError(.accessDenied, "Message: the new owner of \(distributor) has not confirmed a registration yet")
        }
        let label = "push for \(record.app)" + (message.id.isEmpty ? "" : " (message \(message.id))")
        let digest = SHA256.digest(message.body)
        if try fromStore({ () throws(StoreError) in try store.pushReplays.contains(app: record.app, digest: digest) }) {
            warn(call.sender, "ignored a replayed \(label) from \(call.sender ?? "?"): the same message was "
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
            let reason = "\(label) does not decrypt: \(error.message)"
            warn(call.sender, "rejected a \(reason)")
            try reject(record, message, reason)
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
            try rememberInvalid(app: app, digest: digest, at: now)
            let why = "\(label) is not a valid push: \(reason)"
            warn(call.sender, "rejected a \(why)")
            try reject(record, message, why)
            return acknowledge(call, id: message.id, version: version)
        case .failed(let reason):
            // The storage failure itself is the storage health's to log (the service reported it, once and
            // rate-limited); which message it held back is this line, throttled per peer like every line a
            // distributor's traffic causes: a distributor that redelivers a backlog into a full disk every
            // few seconds must not write a line per message each time. Not logged again by the caller.
            warn(call.sender, "\(label) not applied (the distributor will deliver it again): \(reason)")
            var failure = PushConnectorError(.storage, reason)
            failure.alreadyLogged = true
            throw failure
        case .overQuota(let reason):
            warn(call.sender, "\(label) not applied (the distributor will deliver it again): \(reason)")
            var failure = PushConnectorError(.quotaExceeded, reason)
            failure.alreadyLogged = true
            throw failure
        }
    }

    /// Records an authentic but invalid push's `digest` in `app`'s replay window at `now`, in a transaction
    /// of its own (an applied push's record is in the push's transaction, which the daemon's service
    /// reports). Reports to the storage health; a failure fails the `Message` call with `.storage`, not
    /// acknowledged, so the distributor delivers it again.
    func rememberInvalid(app: String, digest: [UInt8], at now: Instant) throws(PushConnectorError) {
        try fromStore(writing: "recording an invalid push of \(app) in its replay window", reportingTo: host.storage) {
            () throws(StoreError) in
            try store.transaction { () throws(StoreError) in try store.pushReplays.record(app: app, digest: digest, at: now) }
        }
    }

    /// Counts the rejection on the registration, for List to show (`RejectionRecorder`: written at once,
    /// or with the next write of that app's rejections within a second).
    private func reject(_ record: PushRegistrationRecord, _ message: ConnectorArguments.Message,
                        _ reason: String) throws(PushConnectorError) {
        try rejections.record(app: record.app, PushRejection(at: host.now(), messageID: message.id, reason: reason))
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
}
