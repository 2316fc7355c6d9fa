import ScheddBus

/// The arguments of the connector methods a distributor calls, checked against the UnifiedPush D-Bus
/// spec (DBUS_0.3.0, "Resources"). Pure over a decoded `a{sv}`; unknown keys are ignored, as the
/// spec requires.
///
/// | key | type | rule |
/// |---|---|---|
/// | `token` | s | 1–100 bytes (the connection token) |
/// | `message` | ay (also s) | the raw, still encrypted body; its size is not checked here: an empty body or one over 4096 bytes does not decrypt (`WebPush.decrypt`), so it is rejected, recorded with the registration and acknowledged like any other (docs/receiving-pushes.md) |
/// | `id` | s | optional message id, echoed in the reply |
/// | `endpoint` | s | 1–1000 bytes |
///
/// The spec calls `message` a String, but the body is binary and KUnifiedPush sends `ay`; a string
/// is taken as its UTF-8 bytes.
public enum ConnectorArguments {
    public static let maximumTokenBytes = 100
    public static let maximumEndpointBytes = 1000

    public struct Message: Sendable, Equatable {
        public var token: String
        public var body: [UInt8]
        public var id: String
    }

    public static func token(_ arguments: [String: BusVariant], member: String) throws(PushConnectorError) -> String {
        guard let value = arguments["token"] else {
            throw PushConnectorError(.invalidArgument, "\(member): the 'token' argument is missing")
        }
        guard let token = value.string else {
            throw PushConnectorError(.invalidArgument, "\(member): 'token' must be a string (s)")
        }
        try checkToken(token, member: member)
        return token
    }

    public static func checkToken(_ token: String, member: String) throws(PushConnectorError) {
        guard (1...maximumTokenBytes).contains(token.utf8.count) else {
            throw PushConnectorError(.invalidArgument, "\(member): 'token' must be 1–100 bytes, got \(token.utf8.count)")
        }
    }

    public static func message(_ arguments: [String: BusVariant]) throws(PushConnectorError) -> Message {
        let token = try token(arguments, member: "Message")
        let body: [UInt8]
        switch arguments["message"] {
        case .bytes(let bytes)?: body = bytes
        case .string(let text)?: body = Array(text.utf8)
        case .other(let signature)?:
            throw PushConnectorError(.invalidArgument, "Message: 'message' must be a byte array (ay), got '\(signature)'")
        case nil:
            throw PushConnectorError(.invalidArgument, "Message: the 'message' argument is missing")
        }
        var id = ""
        if let value = arguments["id"] {
            guard let text = value.string else {
                throw PushConnectorError(.invalidArgument, "Message: 'id' must be a string (s)")
            }
            id = text
        }
        return Message(token: token, body: body, id: id)
    }

    public static func endpoint(_ arguments: [String: BusVariant]) throws(PushConnectorError) -> String {
        guard let endpoint = arguments["endpoint"]?.string else {
            throw PushConnectorError(.invalidArgument, "NewEndpoint: 'endpoint' (a string) is missing")
        }
        try checkEndpoint(endpoint)
        return endpoint
    }

    public static func checkEndpoint(_ endpoint: String) throws(PushConnectorError) {
        guard (1...maximumEndpointBytes).contains(endpoint.utf8.count) else {
            throw PushConnectorError(.invalidArgument, "NewEndpoint: 'endpoint' must be 1–1000 bytes, got \(endpoint.utf8.count)")
        }
    }
}
