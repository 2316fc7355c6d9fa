/// An app's identity in schedd: a reverse-DNS name that follows the D-Bus well-known-name rules
/// (CONTRACT §8), the same rule Flatpak, GApplication and the Desktop Entry Specification use for
/// application ids.
///
/// The rule, checked by `init(validating:)`:
/// - 1–255 bytes of ASCII;
/// - at least two elements separated by `.` (`org.example.App`; `App` alone is refused), none empty
///   (no leading, trailing or doubled `.`);
/// - each element made of `A–Z a–z 0–9 _ -` and not starting with a digit (`org.7zip.App` is refused).
///
/// Examples: `org.gnome.Epiphany`, `com.obsproject.Studio`, `org.example.My_App-2` are valid;
/// `example`, `org..example`, `.org.example`, `org.example.`, `org.9lives`, `org.ex ample`,
/// `:1.42` (a unique bus name) are not. O(length).
public struct AppID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as written (case is significant, as in D-Bus names).
    public let rawValue: String

    /// The D-Bus limit on a bus name: 255 bytes.
    public static let maxBytes = 255

    /// The app of callers that name none and are neither sandboxed nor in an app unit: a person at a
    /// terminal using the CLI, a script, a cron job. Schedules from before apps existed (schema
    /// migration) belong to it too. Shown as "schedd" (see `AppPresentation`).
    public static let defaultApp = AppID(unchecked: "org.schedd.Default")

    /// Validates `text`; throws an `AppIDError` naming the broken rule.
    public init(validating text: String) throws(AppIDError) {
        try Self.check(text)
        rawValue = text
    }

    /// For literals known to be valid (checked in debug builds).
    init(unchecked text: String) {
        assert((try? Self.check(text)) != nil, "invalid app id literal \(text)")
        rawValue = text
    }

    public var description: String { rawValue }

    public static func < (a: AppID, b: AppID) -> Bool { a.rawValue < b.rawValue }

    /// True when `text` is a valid app id.
    public static func isValid(_ text: String) -> Bool { (try? check(text)) != nil }

    /// The rule itself (see the type's documentation).
    static func check(_ text: String) throws(AppIDError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw AppIDError(text, "must not be empty") }
        guard bytes.count <= maxBytes else { throw AppIDError(text, "longer than \(maxBytes) bytes") }
        var elements = 1
        var elementStart = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                if elementStart { throw AppIDError(text, "has an empty element (a leading, trailing or doubled '.')") }
                elements += 1
                elementStart = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if elementStart { throw AppIDError(text, "has an element starting with a digit") }
                elementStart = false
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"):
                elementStart = false
            default:
                throw AppIDError(text, "may hold only A-Z a-z 0-9 _ - and '.' between elements")
            }
        }
        if elementStart { throw AppIDError(text, "has an empty element (a leading, trailing or doubled '.')") }
        guard elements >= 2 else { throw AppIDError(text, "needs at least two elements, reverse DNS (org.example.App)") }
    }
}

/// An app id that breaks the rule of `AppID`: the text (quoted, cut to 80 characters) and the rule.
public struct AppIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rejected text.
    public let text: String
    /// The rule it breaks, e.g. "needs at least two elements, reverse DNS (org.example.App)".
    public let rule: String

    public init(_ text: String, _ rule: String) { self.text = text; self.rule = rule }

    /// `app id "example" needs at least two elements, reverse DNS (org.example.App)`.
    public var description: String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        var quoted = "\""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += "\\u{\(String(scalar.value, radix: 16))}"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return "app id \(quoted)\" \(rule)"
    }
}
