import Scheduler

/// The arguments of one `org.freedesktop.Notifications.Notify` call (signature `susssasa{sv}i`),
/// built from a due notification and what the server said it can do.
///
/// A pure value: building it reads no bus, so the mapping below is testable on its own.
///
/// | Notify argument | from |
/// |---|---|
/// | `app_name` | the app's name (`AppPresentation`: its desktop file's `Name=`, else the app id; "schedd" for the default app) |
/// | `replaces_id` | the server id of the same schedule still on screen, else 0 |
/// | `app_icon` | `icon`, else the desktop file's `Icon=`; a file path (starting with `/`) becomes a `file://` URI |
/// | `summary` | `title`, plain text (the spec allows no markup in the summary) |
/// | `body` | `body`, escaped with `NotificationMarkup.escape` only if the server has `body-markup` |
/// | `actions` | only if the server has `actions`: `[id, title]…`, then one `schedd-snooze-SECONDS` / "Snooze 10 min" per `snoozeSeconds`, then `["default", "Open"]` when opening can run something |
/// | `hints` | `urgency` (byte: low 0, normal 1, critical 2), `category`, `desktop-entry` (the app id), `image-path` (`bk.image` when local, else a file icon), `x-schedd-id`, `x-schedd-app` |
/// | `expire_timeout` | by urgency: see `ExpireTimeouts` |
///
/// An alarm (`alarm: true`) is then changed as `AlarmPresentation` says (critical, `resident`, `sound-name`,
/// category `x-schedd.alarm`, a Dismiss button, never expiring).
public struct NotifyRequest: Sendable, Hashable {
    /// One hint value; the D-Bus variant type is part of the spec (urgency must be a byte).
    public enum HintValue: Sendable, Hashable {
        case string(String)
        case byte(UInt8)
        case bool(Bool)
    }

    /// One `{sv}` entry of the hints dictionary.
    public struct Hint: Sendable, Hashable {
        public var key: String
        public var value: HintValue
        public init(_ key: String, _ value: HintValue) { self.key = key; self.value = value }
    }

    public var appName: String
    public var replacesId: UInt32
    public var appIcon: String
    public var summary: String
    public var body: String
    /// Alternating action key and label, as the spec's `as actions`.
    public var actions: [String]
    /// Hints in a fixed order (the wire dictionary is unordered; a stable order keeps calls reproducible).
    public var hints: [Hint]
    /// Milliseconds; -1 = the server's default, 0 = never expires.
    public var expireTimeout: Int32

    /// Builds the call for `notification` against a server with `capabilities`.
    public init(notification: DueNotification, capabilities: Set<String>, replacesId: UInt32,
                configuration: DesktopNotifier.Configuration, presentation: AppPresentation = .schedd) {
        appName = presentation.appName
        self.replacesId = replacesId
        summary = notification.title
        let rawBody = notification.body ?? ""
        body = capabilities.contains("body-markup") ? NotificationMarkup.escape(rawBody) : rawBody
        var hints = [Hint("urgency", .byte(notification.urgency.byteValue))]
        if let category = notification.category, !category.isEmpty { hints.append(Hint("category", .string(category))) }
        hints.append(Hint("desktop-entry", .string(presentation.desktopEntry)))
        appIcon = ""
        var imagePath: String?
        if let image = notification.extras.localImagePath { imagePath = NotifyRequest.fileURI(path: image) }
        if let icon = notification.icon.flatMap({ $0.isEmpty ? nil : $0 }) ?? presentation.icon {
            if icon.hasPrefix("/") {
                let uri = NotifyRequest.fileURI(path: icon)
                appIcon = uri
                imagePath = imagePath ?? uri
            } else {
                appIcon = icon
            }
        }
        if let imagePath { hints.append(Hint("image-path", .string(imagePath))) }
        hints.append(Hint("x-schedd-id", .string(notification.id)))
        if presentation != .schedd { hints.append(Hint("x-schedd-app", .string(notification.app))) }
        self.hints = hints
        var actions: [String] = []
        if capabilities.contains("actions") {
            for action in notification.actions { actions += [action.id, action.title] }
            for seconds in notification.extras.snoozeSeconds {
                actions += [NotifyRequest.snoozeKey(seconds), NotifyRequest.snoozeLabel(seconds)]
            }
            if presentation.canOpen && !notification.actions.contains(where: { $0.id == "default" }) {
                actions += ["default", "Open"]
            }
        }
        self.actions = actions
        expireTimeout = configuration.expireTimeouts.milliseconds(for: notification.urgency)
        if notification.extras.alarm { AlarmPresentation.apply(to: &self, capabilities: capabilities) }
    }

    /// The labels of the buttons `notification` would have on a server with `actions` that a server
    /// without it does not get (its actions, its snoozes, "Open"): empty when the server has `actions`
    /// or there were none. Such a notification is shown, but nothing can be pressed on it.
    public static func droppedButtons(_ notification: DueNotification, capabilities: Set<String>,
                                      presentation: AppPresentation) -> [String] {
        if capabilities.contains("actions") { return [] }
        var labels = notification.actions.map(\.title) + notification.extras.snoozeSeconds.map(snoozeLabel)
        if notification.extras.alarm { labels.append(AlarmPresentation.dismissLabel) }
        if presentation.canOpen && !notification.actions.contains(where: { $0.id == "default" }) { labels.append("Open") }
        return labels
    }

    /// The action key of a snooze button: `schedd-snooze-600`.
    public static func snoozeKey(_ seconds: Int64) -> String { snoozePrefix + String(seconds) }
    static let snoozePrefix = "schedd-snooze-"

    /// The seconds of a snooze action key, nil for other keys.
    public static func snoozeSeconds(ofKey key: String) -> Int64? {
        guard key.hasPrefix(snoozePrefix) else { return nil }
        return Int64(key.dropFirst(snoozePrefix.count))
    }

    /// "Snooze 10 min", "Snooze 1 h", "Snooze 1 h 30 min", "Snooze 2 d", "Snooze 90 s".
    public static func snoozeLabel(_ seconds: Int64) -> String {
        var parts: [String] = []
        var rest = seconds
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("min", 60)] where rest >= size {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        if rest > 0 { parts.append("\(rest) s") }
        return "Snooze " + parts.joined(separator: " ")
    }

    /// `file://` URI of an absolute path, percent-encoding every byte outside RFC 3986's unreserved set
    /// and `/`. `fileURI(path: "/a b/x.png") == "file:///a%20b/x.png"`.
    public static func fileURI(path: String) -> String {
        var out = "file://"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }
}

extension Urgency {
    /// The spec's urgency byte: low 0, normal 1, critical 2.
    public var byteValue: UInt8 {
        switch self {
        case .low: 0
        case .normal: 1
        case .critical: 2
        }
    }
}

/// Expire timeout per urgency, in milliseconds as the Notify call takes it.
///
/// Defaults: low 5000 (5 s: an FYI should not linger), normal -1 (the server's default, which the
/// person configured), critical 0 (never expires: it stays until the person or a cancel closes it —
/// the spec says critical notifications should not expire automatically).
public struct ExpireTimeouts: Sendable, Hashable {
    public var low: Int32
    public var normal: Int32
    public var critical: Int32
    public init(low: Int32 = 5000, normal: Int32 = -1, critical: Int32 = 0) {
        self.low = low; self.normal = normal; self.critical = critical
    }
    public func milliseconds(for urgency: Urgency) -> Int32 {
        switch urgency {
        case .low: low
        case .normal: normal
        case .critical: critical
        }
    }
}
