import Scheduler

/// Where an app's registration stands (not stored: derived again at start, by re-registering).
public enum RegistrationState: Sendable, Equatable {
    /// Register sent to the distributor; no answer or no endpoint yet.
    case registering
    /// The distributor answered REGISTRATION_SUCCEEDED and an endpoint is known.
    case registered
    /// No distributor is on the bus (or the override's is missing); waiting for one.
    case noDistributor(String)
    /// The distributor refused or failed; retried when a distributor (re)appears or the app asks again.
    case failed(String)

    var name: String {
        switch self {
        case .registering: "registering"
        case .registered: "registered"
        case .noDistributor: "no-distributor"
        case .failed: "failed"
        }
    }

    var reason: String? {
        switch self {
        case .noDistributor(let text), .failed(let text): text
        default: nil
        }
    }
}

extension PushRegistrationRecord {
    /// What an app (and its server) needs, as JSON: the endpoint and the Web Push keys (`p256dh`,
    /// `auth`, base64url as Web Push subscriptions write them), the distributor, the state, and the
    /// record of rejected pushes. Never the private key, never the token.
    /// The registration as apps see it; `withKeys` false leaves out `p256dh` and `auth` (signals carry
    /// no keys: only Register and List hand them out, to the app itself).
    func json(state: RegistrationState, withKeys: Bool = true) -> JSONValue {
        var members = [
            JSONMember("app", .string(app)),
            JSONMember("endpoint", .optional(endpoint)),
            JSONMember("p256dh", .string(publicKey)),
            JSONMember("auth", .string(authSecret)),
            JSONMember("distributor", .optional(distributor)),
            JSONMember("state", .string(state.name)),
            JSONMember("description", .string(description)),
            JSONMember("rejected", .int(rejected)),
        ]
        if let reason = state.reason { members.insert(JSONMember("reason", .string(reason)), at: 6) }
        if !withKeys { members.removeAll { $0.key == "p256dh" || $0.key == "auth" } }
        if let last = lastRejection {
            members.append(JSONMember("lastRejection", .object([
                JSONMember("at", .string(last.at.rfc3339)), JSONMember("id", .string(last.messageID)),
                JSONMember("reason", .string(last.reason)),
            ])))
        }
        return .object(members)
    }
}
