/// What schedd uses of an app's desktop file (Desktop Entry Specification 1.5, group `[Desktop Entry]`).
///
/// | key | used for |
/// |---|---|
/// | `Name` (localized) | the notification's `app_name` |
/// | `Icon` | the notification's icon when the push has none |
/// | `DBusActivatable` | `true`: opening a notification calls `org.freedesktop.Application` on the bus name = app id |
/// | `Exec` | otherwise: the command launched to open the app (field codes expanded, see `ExecCommandLine`) |
/// | `Type` | must be `Application` (a `Link` or `Directory` entry is not an app) |
/// | `Hidden` | `true` means the entry is deleted (spec §6): treated as absent |
/// | `MimeType` | its `x-scheme-handler/SCHEME` entries: the schemes a sandboxed app may link to (`SandboxedPushRules`) |
public struct DesktopEntry: Sendable, Hashable {
    /// The file it came from (the `%k` field code).
    public var path: String
    public var name: String
    public var icon: String?
    public var exec: String?
    public var dbusActivatable: Bool
    /// The schemes of `MimeType=`'s `x-scheme-handler/…` entries, lowercased, in file order, without
    /// duplicates (`MimeType=text/plain;x-scheme-handler/Reminders;` → `["reminders"]`).
    public var uriSchemes: [String] = []

    /// Reads an entry from a desktop file's bytes; nil when it is no usable application entry (no
    /// `[Desktop Entry]` group, `Type` other than `Application`, `Hidden=true`, or no `Name`).
    /// `locale` picks the `Name[xx]` variant (LC_ALL / LC_MESSAGES / LANG). O(size).
    public init?(bytes: some Collection<UInt8>, path: String, locale: String? = nil) {
        guard bytes.count <= KeyFile.maxBytes else { return nil }
        let file = KeyFile(bytes: bytes)
        let group = "Desktop Entry"
        guard file.groups[group] != nil, file.string("Type", in: group) == "Application",
              file.bool("Hidden", in: group) != true,
              let name = file.localizedString("Name", in: group, locale: locale), !name.isEmpty else { return nil }
        self.path = path
        self.name = name
        let icon = file.string("Icon", in: group)?.trimmingSpaces()
        self.icon = icon?.isEmpty == false ? icon : nil
        let exec = file.string("Exec", in: group)
        self.exec = exec?.isEmpty == false ? exec : nil
        dbusActivatable = file.bool("DBusActivatable", in: group) ?? false
        uriSchemes = Self.uriSchemes(mimeTypes: file.string("MimeType", in: group) ?? "")
    }

    /// The schemes of the `x-scheme-handler/…` items of a `MimeType=` value (a `;`-separated list).
    static func uriSchemes(mimeTypes: String) -> [String] {
        var out: [String] = []
        for item in mimeTypes.split(separator: ";") {
            let item = item.trimmingSpaces()
            let prefix = "x-scheme-handler/"
            guard item.utf8.count > prefix.utf8.count, item.lowercased().hasPrefix(prefix) else { continue }
            let scheme = String(item.dropFirst(prefix.count)).lowercased()
            if !out.contains(scheme) { out.append(scheme) }
        }
        return out
    }

    public init(path: String, name: String, icon: String?, exec: String?, dbusActivatable: Bool, uriSchemes: [String] = []) {
        self.path = path; self.name = name; self.icon = icon; self.exec = exec; self.dbusActivatable = dbusActivatable
        self.uriSchemes = uriSchemes
    }
}
