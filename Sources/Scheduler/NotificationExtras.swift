/// The envelope members around `bk.local` that say what the notification opens and shows
/// (CONTRACT §1 "the rest of the buzzkit envelope", §8), kept with the schedule and handed to the
/// notifier with every firing.
///
/// Stored as one JSON column (`StoreCoding.encode(extras:)`), so a member added later needs no schema step.
public struct NotificationExtras: Sendable, Hashable {
    /// `bk.deepLink`: a URL (`scheme:…`) that opening the notification opens in the app.
    public var deepLink: String?
    /// `bk.action`: the app action that opening the notification runs.
    public var action: AppActionRequest?
    /// `bk.image`: shown as the notification's image when it is a `file://` URI or an absolute path;
    /// other URLs are kept but never fetched (schedd never goes online).
    public var image: String?
    /// `bk.local.snoozeSeconds`: one "Snooze" button per duration (at most 2, each 60 s – 7 days).
    public var snoozeSeconds: [Int64]
    /// `bk.local.alarm` (CONTRACT §11): presented as an alarm (`AlarmPresentation` in ScheddDesktop), never folded.
    public var alarm = false
    /// `bk.local.wake` (set by `alarm` too): the machine is woken for it when the kernel allows.
    public var wake = false
    /// The snooze an alarm without `snoozeSeconds` offers: 10 minutes.
    public static let alarmSnoozeSeconds: Int64 = 600

    public init(deepLink: String? = nil, action: AppActionRequest? = nil, image: String? = nil,
                snoozeSeconds: [Int64] = [], alarm: Bool = false, wake: Bool = false) {
        self.deepLink = deepLink; self.action = action; self.image = image; self.snoozeSeconds = snoozeSeconds
        self.alarm = alarm; self.wake = wake
    }

    /// True when nothing is set (stored as NULL).
    public var isEmpty: Bool {
        deepLink == nil && action == nil && image == nil && snoozeSeconds.isEmpty && !alarm && !wake
    }

    /// The local file to show as the image: the path of a `file://` URI (percent-decoded) or an absolute
    /// path; nil for other URLs.
    public var localImagePath: String? {
        guard let image else { return nil }
        if image.hasPrefix("/") { return image }
        return Self.localPath(ofFileURL: image)
    }

    /// `/a b` for `file:///a%20b` (or `file://localhost/…`); nil for anything else or a bad escape.
    public static func localPath(ofFileURL url: String) -> String? {
        var rest: Substring
        if url.hasPrefix("file:///") { rest = url.dropFirst(7) }
        else if url.hasPrefix("file://localhost/") { rest = url.dropFirst(16) }
        else { return nil }
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        var bytes: [UInt8] = []
        var utf8 = Array(rest.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16),
                  value != 0 else { return nil }
            utf8 = utf8.dropFirst(2)
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// `bk.action`: `{"name": "show_offer", "data": {…}}` — an app action, named as the app names it
/// (1–128 bytes, no control characters; not limited to GAction's `A–Z a–z 0–9 - .`), and its optional
/// JSON parameter.
public struct AppActionRequest: Sendable, Hashable {
    public var name: String
    /// `data` serialized as compact JSON; nil when absent.
    public var dataJSON: String?
    public init(name: String, dataJSON: String? = nil) { self.name = name; self.dataJSON = dataJSON }
}
