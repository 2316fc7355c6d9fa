import SchedCalendar

/// One app's UnifiedPush registration as the store keeps it (schema v3, table `push_registrations`).
///
/// One row per app (the app id is the key); the connector token is unique across rows. Keys are
/// stored as base64url text: `privateKey` is the P-256 scalar that decrypts the app's pushes, so
/// the database file's 0600 mode is what protects it (docs/receiving-pushes.md).
public struct PushRegistrationRecord: Sendable, Equatable {
    public var app: String
    /// The connection token schedd chose for this app (UnifiedPush: at most 100 bytes).
    public var token: String
    /// The description sent with Register (shown by some distributors).
    public var description: String
    /// The distributor's bus name this registration was last made with; nil before the first one.
    public var distributor: String?
    /// The endpoint from the distributor's latest NewEndpoint; nil while none arrived.
    public var endpoint: String?
    public var privateKey: String
    public var publicKey: String
    public var authSecret: String
    public var created: Instant
    public var updated: Instant
    /// How many pushes for this app were rejected (did not decrypt, or were not valid pushes).
    public var rejected: Int64
    /// The latest of them.
    public var lastRejection: PushRejection?

    public init(app: String, token: String, description: String, distributor: String?, endpoint: String?,
                privateKey: String, publicKey: String, authSecret: String, created: Instant, updated: Instant,
                rejected: Int64 = 0, lastRejection: PushRejection? = nil) {
        self.app = app; self.token = token; self.description = description; self.distributor = distributor
        self.endpoint = endpoint; self.privateKey = privateKey; self.publicKey = publicKey
        self.authSecret = authSecret; self.created = created; self.updated = updated
        self.rejected = rejected; self.lastRejection = lastRejection
    }
}

/// A push message the connector refused, as recorded with its registration.
public struct PushRejection: Sendable, Equatable {
    public var at: Instant
    /// The distributor's message id ("" when it gave none).
    public var messageID: String
    /// Why, as logged (never the plaintext).
    public var reason: String
    public init(at: Instant, messageID: String, reason: String) {
        self.at = at; self.messageID = messageID; self.reason = reason
    }
}
