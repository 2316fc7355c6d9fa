import Scheduler

/// Why a JSON text did not parse (`JSONError`'s description: "invalid JSON at byte 17: …").
struct JSONParseFailure: Error, Sendable { var message: String }

/// Parses one JSON text with the Scheduler module's strict RFC 8259 parser.
func parseJSON(_ text: String) -> Result<JSONValue, JSONParseFailure> {
    do {
        return .success(try JSONValue.parse(text))
    } catch {
        return .failure(JSONParseFailure(message: error.description))
    }
}

extension JSONValue {
    /// The member `key` of an object (the last one when repeated), or nil.
    subscript(member key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }
    var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    var numberText: String? { if case .number(let n) = self { return n }; return nil }
}
