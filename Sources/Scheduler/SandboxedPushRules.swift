/// What a push from a sandboxed app may name (CONTRACT §8 "Nothing of the host"; docs/apps.md
/// "Sandboxed apps: links, icons and images"): nothing that lets it reach through schedd what its
/// sandbox withholds — no local file as a link that opening the notification hands to an app
/// (Flatpak's file forwarding would grant the app that file through the document portal), and no local
/// file as an icon or image (the notification server would read it for the app).
///
/// | member | a sandboxed app may give | refused (examples) |
/// |---|---|---|
/// | `bk.deepLink` | `http:`, `https:`, a scheme its own desktop file declares as `x-scheme-handler/SCHEME` | `file:///etc/shadow`, `file://localhost/…`, `about:blank`, another app's `other://x` |
/// | `bk.local.icon` | a themed icon name (`mail-unread`, no `/`), a URL other than `file:` | `/home/u/.ssh/id_rsa`, `file:///x.png`, `../x` |
/// | `bk.image` | the same as `icon` | the same |
///
/// `file` is refused even when the desktop file declares it. Schemes compare case-insensitively
/// (RFC 3986 §3.1). Unsandboxed callers are not checked (they run as the same user, with no boundary
/// between them and the host). Pure; O(length of the members + declared schemes).
public struct SandboxedPushRules: Sendable, Hashable {
    /// The schemes a sandboxed app may always link to.
    public static let webSchemes: [String] = ["http", "https"]
    /// Never accepted as a link, declared or not: it names a file of the host.
    public static let hostSchemes: Set<String> = ["file"]

    /// The schemes of `x-scheme-handler/…` in the app's desktop file, lowercased (without `file`).
    public var declaredSchemes: Set<String>

    /// `declaredSchemes`: the schemes the app's desktop file declares (any case; `file` is dropped).
    public init(declaredSchemes: some Sequence<String> = []) {
        self.declaredSchemes = Set(declaredSchemes.map(Self.lowercased).filter { !Self.hostSchemes.contains($0) })
    }

    /// Throws the first member of `push` a sandboxed app may not give, naming it and the rule.
    public func check(_ push: Push) throws(PushError) {
        if let link = push.extras.deepLink { try checkLink(link) }
        if let icon = push.local?.icon { try Self.checkNotLocalFile(icon, member: "bk.local.icon") }
        if let image = push.extras.image { try Self.checkNotLocalFile(image, member: "bk.image") }
    }

    /// `bk.deepLink`: its scheme is http, https or one of `declaredSchemes`.
    public func checkLink(_ link: String) throws(PushError) {
        let scheme = Self.scheme(of: link)
        if let scheme, Self.webSchemes.contains(scheme) || declaredSchemes.contains(scheme) { return }
        let allowed = (Self.webSchemes + declaredSchemes.sorted()).map { $0 + ":" }.joined(separator: ", ")
        let what = scheme.map { Self.hostSchemes.contains($0) ? "a local file" : "the scheme \($0):" } ?? "not a URL"
        throw PushError("bk.deepLink", "a sandboxed app may link only to \(allowed) (the schemes of its desktop "
                        + "file's x-scheme-handler/… MimeType), not to \(what)")
    }

    /// `icon` and `bk.image`: a themed name (no `/`, not `.` or `..`, not `~…`) or a URL that is not `file:`.
    static func checkNotLocalFile(_ text: String, member: String) throws(PushError) {
        if let scheme = scheme(of: text) {
            guard hostSchemes.contains(scheme) else { return }
        } else if !text.contains("/") && !text.hasPrefix("~") && text != "." && text != ".." {
            return
        }
        throw PushError(member, "a sandboxed app may give a themed icon name or a URL, not a local file path")
    }

    /// The lowercased RFC 3986 scheme of `text` (`HTTPS://x` → `https`); nil when it has none.
    public static func scheme(of text: String) -> String? {
        guard PushDecoder.hasURIScheme(text), let colon = text.firstIndex(of: ":") else { return nil }
        return lowercased(String(text[..<colon]))
    }

    private static func lowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
