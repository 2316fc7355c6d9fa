/// What opening a notification runs for its app (CONTRACT §8 "Opening it opens the app").
///
/// | the person | the app's desktop file | runs |
/// |---|---|---|
/// | clicks the notification, push has `bk.action` | `DBusActivatable=true` | `ActivateAction(name, [data], platform-data)` |
/// | clicks it, push has `bk.deepLink` | `DBusActivatable=true` | `Open([deepLink], platform-data)` |
/// | clicks it, neither | `DBusActivatable=true` | `Activate(platform-data)` |
/// | clicks it | has `Exec=` (not D-Bus activatable) | the command line, the deep link as its URL (`%u`/`%U`) |
/// | presses button `KEY` | `DBusActivatable=true` | `ActivateAction(KEY, [], platform-data)` |
/// | presses button `KEY` | only `Exec=` | nothing (a launched program has no actions; recorded as such) |
/// | anything | no desktop file | nothing: there is nothing to open, so no implicit "default" action is offered |
///
/// `org.freedesktop.Application` is called on the bus name = app id, at the object path the Desktop
/// Entry Specification derives from it (`/org/example/Reminders`). `data` of `bk.action` is passed as
/// one string variant holding its JSON text (GApplication actions with a `s` parameter take it as is).
/// `platform-data` carries the server's activation token as `activation-token` (Wayland's
/// xdg-activation) and `desktop-startup-id` (X11 startup notification); a launched command gets it in
/// `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID`.
public enum AppActivation {
    /// What was pressed: the notification itself (the `default` action) or a button.
    public enum Invocation: Sendable, Hashable {
        case body
        case button(String)
    }

    /// An `org.freedesktop.Application` method call.
    public enum ApplicationCall: Sendable, Hashable {
        case activateAction(name: String, parameterJSON: String?)
        case open(uris: [String])
        case activate
    }

    public enum Plan: Sendable, Hashable {
        case call(busName: String, objectPath: String, ApplicationCall, platformData: [String: String])
        case launch(arguments: [String], environment: [String: String])
        /// Nothing can run; the reason goes into history.
        case nothing(reason: String)
    }

    /// The plan for `invocation` of a notification of `app` (pure).
    public static func plan(app: AppID, entry: DesktopEntry?, invocation: Invocation, deepLink: String?,
                            action: (name: String, dataJSON: String?)?, activationToken: String?) -> Plan {
        guard let entry else { return .nothing(reason: "\(app) has no desktop file") }
        var platformData: [String: String] = [:]
        if let activationToken {
            platformData["activation-token"] = activationToken
            platformData["desktop-startup-id"] = activationToken
        }
        if entry.dbusActivatable {
            let call: ApplicationCall
            switch invocation {
            case .button(let key): call = .activateAction(name: key, parameterJSON: nil)
            case .body:
                if let action { call = .activateAction(name: action.name, parameterJSON: action.dataJSON) }
                else if let deepLink { call = .open(uris: [deepLink]) }
                else { call = .activate }
            }
            return .call(busName: app.rawValue, objectPath: objectPath(of: app), call, platformData: platformData)
        }
        guard case .body = invocation else {
            return .nothing(reason: "\(app) is not D-Bus activatable, so its actions cannot be run")
        }
        guard let exec = entry.exec else { return .nothing(reason: "\(entry.path) has no Exec") }
        do {
            let arguments = try ExecCommandLine.arguments(exec, entry: entry, url: deepLink)
            var environment: [String: String] = [:]
            if let activationToken {
                environment["XDG_ACTIVATION_TOKEN"] = activationToken
                environment["DESKTOP_STARTUP_ID"] = activationToken
            }
            return .launch(arguments: arguments, environment: environment)
        } catch {
            return .nothing(reason: "\(entry.path): \(error)")
        }
    }

    /// Whether clicking the notification itself can open anything (the implicit `default` action is
    /// offered only then): a D-Bus-activatable app, or one with an `Exec=`.
    public static func canOpen(_ entry: DesktopEntry?) -> Bool {
        guard let entry else { return false }
        return entry.dbusActivatable || entry.exec != nil
    }

    /// `/org/example/Reminders` for `org.example.Reminders`: `.` → `/`, `-` → `_` (spec "D-Bus Activation").
    public static func objectPath(of app: AppID) -> String {
        "/" + app.rawValue.replacingCharacters(".", "/").replacingCharacters("-", "_")
    }

    /// How a plan reads in history's `ran`: `Open(["reminders://todo/42"])`, `ActivateAction("snooze")`,
    /// `Activate()`, `launch reminders --new-window reminders://todo/42`.
    public static func describe(_ plan: Plan) -> String {
        switch plan {
        case .call(_, _, let call, _):
            switch call {
            case .activateAction(let name, let parameter):
                return "ActivateAction(\(quoted(name))" + (parameter.map { ", [\($0)])" } ?? ")")
            case .open(let uris): return "Open([" + uris.map(quoted).joined(separator: ", ") + "])"
            case .activate: return "Activate()"
            }
        case .launch(let arguments, _): return "launch " + arguments.joined(separator: " ")
        case .nothing(let reason): return "nothing: " + reason
        }
    }

    static func quoted(_ s: String) -> String { "\"" + s + "\"" }
}

extension String {
    func replacingCharacters(_ a: Character, _ b: Character) -> String {
        String(map { $0 == a ? b : $0 })
    }
}
