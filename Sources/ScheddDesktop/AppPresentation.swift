import Glibc
import ScheddApps
import ScheddSystem

/// How a notification of one app is shown (CONTRACT §8 "Shown as the app"), from its desktop file.
///
/// | Notify | from |
/// |---|---|
/// | `app_name` | `Name=` of `APPID.desktop` (localized), else the app id |
/// | `desktop-entry` hint | the app id (the desktop file's basename, as the spec asks) |
/// | `app_icon` | `Icon=` when the push has no `icon` |
/// | the implicit `default` action | only when opening can run something (`AppActivation.canOpen`) |
///
/// The default app (`AppID.defaultApp`, the CLI at a terminal) is schedd itself: `app_name` "schedd",
/// `desktop-entry` "schedd", nothing to open.
public struct AppPresentation: Sendable, Hashable {
    public var appName: String
    public var desktopEntry: String
    public var icon: String?
    /// The desktop file, when found (what opening runs is planned from it).
    public var entry: DesktopEntry?
    public var canOpen: Bool { AppActivation.canOpen(entry) }

    public init(appName: String, desktopEntry: String, icon: String?, entry: DesktopEntry?) {
        self.appName = appName; self.desktopEntry = desktopEntry; self.icon = icon; self.entry = entry
    }

    /// schedd's own presentation (the default app).
    public static let schedd = AppPresentation(appName: "schedd", desktopEntry: "schedd", icon: nil, entry: nil)

    /// The presentation of `app` given its desktop entry (nil: none found).
    public init(app: String, entry: DesktopEntry?) {
        if app == AppID.defaultApp.rawValue && entry == nil {
            self = .schedd
            return
        }
        self.init(appName: entry?.name ?? app, desktopEntry: app, icon: entry?.icon, entry: entry)
    }
}

/// Finds the desktop entries of apps (a `DesktopEntryLocator` over the real file system). Each lookup
/// reads at most one file per search directory; nothing is cached, so an app installed or updated
/// while schedd runs is seen at its next notification.
public struct AppDirectory: Sendable {
    public var locator: DesktopEntryLocator

    public init(locator: DesktopEntryLocator) { self.locator = locator }

    /// From the daemon's environment (XDG_DATA_HOME, XDG_DATA_DIRS, HOME, LC_ALL/LC_MESSAGES/LANG).
    public static func fromEnvironment() -> AppDirectory {
        AppDirectory(locator: DesktopEntryLocator(environment: { name in CurrentProcess.environment(name) }))
    }

    public func entry(for app: String) -> DesktopEntry? {
        guard let id = try? AppID(validating: app) else { return nil }
        return locator.entry(for: id) { ProcessInspector.readSmallFile($0, limit: KeyFile.maxBytes) }
    }

    public func presentation(for app: String) -> AppPresentation {
        AppPresentation(app: app, entry: entry(for: app))
    }
}
