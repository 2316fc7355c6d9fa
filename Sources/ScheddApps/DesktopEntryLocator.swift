/// Finds an app's desktop file (`APPID.desktop`) the way the Desktop Entry and Base Directory
/// specifications say, with Flatpak's export directories added.
///
/// Search order (the first readable, usable entry wins — a user's copy overrides the system's, and a
/// user's copy with `Hidden=true` hides it):
/// 1. `$XDG_DATA_HOME/applications` (default `~/.local/share/applications`)
/// 2. each `$XDG_DATA_DIRS` entry + `/applications` (default `/usr/local/share:/usr/share`)
/// 3. `~/.local/share/flatpak/exports/share/applications` (user installations)
/// 4. `/var/lib/flatpak/exports/share/applications` (system installations)
///
/// 3 and 4 are where Flatpak exports its apps' desktop files; a login session usually has them in
/// `XDG_DATA_DIRS` already (Flatpak's profile script), but a daemon started by systemd may not, so
/// they are always searched (duplicates are skipped). Pure over its inputs: the environment and the
/// file reader are given, so tests use a temporary `XDG_DATA_DIRS`.
public struct DesktopEntryLocator: Sendable {
    /// The directories searched, in order (each ends in `/applications`).
    public let directories: [String]
    /// The locale for `Name[xx]`.
    public let locale: String?

    /// Builds the search path from environment values (nil = unset). `home` is `$HOME`.
    public init(xdgDataHome: String?, xdgDataDirs: String?, home: String?, locale: String?) {
        var bases: [String] = []
        if let dataHome = xdgDataHome, dataHome.hasPrefix("/") {
            bases.append(dataHome)
        } else if let home, !home.isEmpty {
            bases.append(home + "/.local/share")
        }
        let dirs = (xdgDataDirs?.isEmpty == false ? xdgDataDirs! : "/usr/local/share:/usr/share")
        // The spec: relative entries are invalid and ignored.
        bases += dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        if let home, !home.isEmpty { bases.append(home + "/.local/share/flatpak/exports/share") }
        bases.append("/var/lib/flatpak/exports/share")
        var seen = Set<String>()
        directories = bases.map { Self.trimmingSlashes($0) + "/applications" }.filter { seen.insert($0).inserted }
        self.locale = locale
    }

    /// From a process environment (`getenv`-like lookup): XDG_DATA_HOME, XDG_DATA_DIRS, HOME, and the
    /// locale from LC_ALL, LC_MESSAGES, LANG in that order.
    public init(environment: (String) -> String?) {
        var locale: String?
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment(name), !value.isEmpty { locale = value; break }
        }
        self.init(xdgDataHome: environment("XDG_DATA_HOME"), xdgDataDirs: environment("XDG_DATA_DIRS"),
                  home: environment("HOME"), locale: locale)
    }

    /// The paths tried for `app`, in order.
    public func candidatePaths(for app: AppID) -> [String] {
        directories.map { $0 + "/" + app.rawValue + ".desktop" }
    }

    /// The first usable entry for `app`; `read` returns a file's bytes or nil when it cannot be read.
    /// At most `directories.count` reads.
    public func entry(for app: AppID, read: (String) -> [UInt8]?) -> DesktopEntry? {
        for path in candidatePaths(for: app) {
            guard let bytes = read(path) else { continue }
            if let entry = DesktopEntry(bytes: bytes, path: path, locale: locale) { return entry }
            // `Hidden=true` is the user deleting the app (spec §6): the copies below do not count either.
            if KeyFile(bytes: bytes).bool("Hidden", in: "Desktop Entry") == true { return nil }
        }
        return nil
    }

    private static func trimmingSlashes(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return String(p)
    }
}
