/// Where a caller's app id came from, most trusted first (CONTRACT §8, docs/apps.md "Identity").
public enum AppIDSource: String, Sendable, Hashable, CaseIterable {
    /// `[Application] name` of the caller's `/.flatpak-info`: a sandbox the caller cannot leave.
    case flatpak
    /// The systemd user unit a desktop launcher started the caller in (`app-…-APPID-RANDOM.scope`).
    case systemdUnit = "systemd-unit"
    /// Named by the caller itself (`--app ID`, `DeclareApp`): believed, since an unsandboxed caller runs
    /// as the same user as every app and could act as any of them anyway.
    case declared
    /// Nobody named an app: `AppID.defaultApp`.
    case defaultApp = "default"
    /// The caller's sandbox status could not be read (another user's `/proc/PID/root` on the system
    /// bus): treated as sandboxed (CONTRACT §8 v3), its app the one of its `app-…` unit, else the default.
    case unreadableSandbox = "sandbox-unreadable"
}

/// The app a call is attributed to.
public struct CallerApp: Sendable, Hashable, CustomStringConvertible {
    public var id: AppID
    public var source: AppIDSource

    public init(id: AppID, source: AppIDSource) { self.id = id; self.source = source }

    /// A sandboxed caller sees and changes only its own app; an unsandboxed one may name any app. A
    /// caller whose sandbox cannot be read counts as sandboxed.
    public var sandboxed: Bool { source == .flatpak || source == .unreadableSandbox }

    /// `org.example.App (flatpak)`.
    public var description: String { "\(id) (\(source.rawValue))" }
}

/// What the daemon learned about a calling process, from the kernel (see `ProcessInspector`).
public struct ProcessFacts: Sendable, Hashable {
    /// The bytes of `/proc/PID/root/.flatpak-info`; nil when the caller's root has no such file.
    public var flatpakInfo: [UInt8]?
    /// The text of `/proc/PID/cgroup`; nil when it could not be read.
    public var cgroup: String?
    /// True when the caller's root could not be looked into (another user's process, the kernel said
    /// EACCES/EPERM), so whether it is sandboxed is unknown: it counts as sandboxed.
    public var sandboxUnreadable = false
    /// When the process started, in µs of CLOCK_BOOTTIME (field 22 of `/proc/PID/stat`, whole clock
    /// ticks, rounded down); nil when it could not be read.
    public var startedAt: UInt64?

    public init(flatpakInfo: [UInt8]?, cgroup: String?, startedAt: UInt64? = nil) {
        self.flatpakInfo = flatpakInfo; self.cgroup = cgroup; self.startedAt = startedAt
    }
}

/// Decides the app of a call (CONTRACT §8). Pure: the facts are read elsewhere.
///
/// | caller | declared id | app |
/// |---|---|---|
/// | Flatpak `org.a.App` | none or `org.a.App` | `org.a.App` (flatpak) |
/// | Flatpak `org.a.App` | `org.b.App` | refused: a sandboxed app cannot act as another |
/// | `.flatpak-info` without a valid `[Application] name` | any | refused |
/// | in `app-gnome-org.c.App-42.scope` | none | `org.c.App` (systemd-unit) |
/// | in `app-gnome-org.c.App-42.scope` | `org.d.App` | `org.d.App` (declared): no boundary between unsandboxed callers |
/// | no app unit | `org.d.App` | `org.d.App` (declared) |
/// | no app unit | none | `AppID.defaultApp` (default) |
/// | sandbox unreadable, in `app-flatpak-org.e.App-42.scope` | none or `org.e.App` | `org.e.App` (sandbox-unreadable, sandboxed) |
/// | sandbox unreadable, no app unit | none | `AppID.defaultApp` (sandbox-unreadable, sandboxed) |
/// | sandbox unreadable | another id | refused: it may be a sandboxed app |
///
/// A declared id that is not a valid app id is refused (the error names the rule).
public enum CallerIdentity {
    public static func resolve(_ facts: ProcessFacts, declared: String?) throws(CallerIdentityError) -> CallerApp {
        if let bytes = facts.flatpakInfo {
            let info: FlatpakInfo
            do { info = try FlatpakInfo(bytes: bytes) } catch {
                throw CallerIdentityError(.unattributable, "the caller is sandboxed but \(error)")
            }
            if let declared, declared != info.appID.rawValue {
                throw CallerIdentityError(.sandboxed, "the caller is the sandboxed app \(info.appID); "
                    + "a sandboxed app acts only as itself, not as \(Self.quoted(declared))")
            }
            return CallerApp(id: info.appID, source: .flatpak)
        }
        if facts.sandboxUnreadable {
            let own = facts.cgroup.flatMap(SystemdUnit.userUnit(cgroupFile:)).flatMap(SystemdUnit.appID(unitName:))
                ?? AppID.defaultApp
            if let declared, declared != own.rawValue {
                throw CallerIdentityError(.sandboxed, "schedd cannot read whether the caller is sandboxed (its process root is "
                    + "unreadable), so it counts as the sandboxed app \(own) and acts only as itself, not as \(Self.quoted(declared))")
            }
            return CallerApp(id: own, source: .unreadableSandbox)
        }
        if let declared {
            do { return CallerApp(id: try AppID(validating: declared), source: .declared) } catch {
                throw CallerIdentityError(.invalidAppID, error.description)
            }
        }
        if let cgroup = facts.cgroup, let unit = SystemdUnit.userUnit(cgroupFile: cgroup),
           let id = SystemdUnit.appID(unitName: unit) {
            return CallerApp(id: id, source: .systemdUnit)
        }
        return CallerApp(id: AppID.defaultApp, source: .defaultApp)
    }

    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 80 ? String(text.prefix(80)) + "…" : text) + "\""
    }
}

/// A call that cannot be attributed to an app, or may not act for the app it names.
public struct CallerIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The declared id breaks the app-id rule (D-Bus: InvalidArgument, CLI exit 1).
        case invalidAppID
        /// A sandboxed caller named another app, or asked for every app (D-Bus: AccessDenied).
        case sandboxed
        /// The caller's process could not be inspected or its sandbox names no valid app (AccessDenied).
        case unattributable
    }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
}
