import ScheddApps
import ScheddBus

/// Runs what opening a notification plans (`AppActivation.Plan`, CONTRACT §8) and reports what ran and
/// whether it worked:
/// - `org.freedesktop.Application` calls go asynchronously on the notifier's session-bus connection
///   (where apps own their names), bounded by `timeoutMicroseconds` (D-Bus activation may start the
///   app first); the loop keeps serving meanwhile. Success = the app replied without an error.
/// - `ActivateAction` that the app answers with an error (GLib refuses names outside `[A-Za-z0-9.-]` and
///   unknown actions with `InvalidArgs`; an app without actions may answer `UnknownMethod`) is followed by
///   `Activate` with the same platform data, so the app still opens (CONTRACT §8); `ran` holds both
///   attempts, `ok` is Activate's. A timeout, a missing owner or a lost bus is not followed up: Activate
///   would meet the same fate.
/// - launches start the desktop file's command line outside schedd (`TransientUnitLauncher`: a
///   transient `app-schedd-….service` of the user's systemd manager, else double fork + setsid);
///   success = it started; `ran` says which way.
/// - `.nothing` reports at once, not ok.
/// `completion` runs exactly once: at once for `.nothing` and a launch without a session bus, in a
/// later dispatch of the connection for calls and other launches. Not thread-safe: the loop thread.
final class AppActivator {
    let launcher = TransientUnitLauncher()
    var timeoutMicroseconds: UInt64 = 10_000_000

    func run(_ plan: AppActivation.Plan, app: String, on bus: BusConnection?,
             completion: @escaping (_ ran: String, _ ok: Bool) -> Void) {
        let ran = AppActivation.describe(plan)
        switch plan {
        case .nothing:
            completion(ran, false)
        case .launch(let arguments, let environment):
            launcher.launch(app: app, arguments: arguments, environment: environment, on: bus) { how, ok in
                completion(ran + " (\(how))", ok)
            }
        case .call(let busName, let objectPath, let call, let platformData):
            guard let bus else { return completion(ran + " (no session bus)", false) }
            guard case .activateAction = call else {
                return send(call, to: busName, objectPath, platformData, on: bus, ran: ran) { r, ok, _ in completion(r, ok) }
            }
            send(call, to: busName, objectPath, platformData, on: bus, ran: ran) { [self] attempt, ok, error in
                guard !ok, let error, Self.isRefusal(error) else { return completion(attempt, ok) }
                let fallback = AppActivation.ApplicationCall.activate
                let then = attempt + "; then " + AppActivation.describe(.call(busName: busName, objectPath: objectPath,
                                                                               fallback, platformData: platformData))
                send(fallback, to: busName, objectPath, platformData, on: bus, ran: then) { r, ok, _ in completion(r, ok) }
            }
        }
    }

    /// True when the app itself answered the call with an error (it refused it), as opposed to nobody
    /// answering (timeout, no owner, bus lost).
    static func isRefusal(_ error: BusError) -> Bool {
        error.name != nil && !error.isTimeout && !error.isNoOwner && !error.isDisconnected
    }

    /// One `org.freedesktop.Application` call; `completion(ran [+ error], ok, error)` exactly once.
    private func send(_ call: AppActivation.ApplicationCall, to busName: String, _ objectPath: String,
                      _ platformData: [String: String], on bus: BusConnection, ran: String,
                      completion: @escaping (_ ran: String, _ ok: Bool, _ error: BusError?) -> Void) {
        let member: String
        switch call {
        case .activate: member = "Activate"
        case .open: member = "Open"
        case .activateAction: member = "ActivateAction"
        }
        let method = BusMethod(destination: busName, path: objectPath, interface: "org.freedesktop.Application",
                               member: member)
        do {
            try bus.callAsync(method, timeoutMicroseconds: timeoutMicroseconds, { m throws(BusError) in
                switch call {
                case .activate: break
                case .open(let uris): try m.append(uris)
                case .activateAction(let name, let parameter):
                    try m.append(name)
                    try m.openContainer("a", "v")
                    if let parameter {
                        try m.openContainer("v", "s")
                        try m.append(parameter)
                        try m.closeContainer()
                    }
                    try m.closeContainer()
                }
                try Self.appendPlatformData(platformData, to: m)
            }, completion: { result in
                switch result {
                case .success: completion(ran, true, nil)
                case .failure(let error): completion(ran + " (\(error))", false, error)
                }
            })
        } catch {
            completion(ran + " (\(error))", false, error)
        }
    }

    /// `a{sv}` of string values, sorted by key (a stable order for recorded calls).
    static func appendPlatformData(_ data: [String: String], to m: BusMessage) throws(BusError) {
        try m.openContainer("a", "{sv}")
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            try m.openContainer("e", "sv")
            try m.append(key)
            try m.openContainer("v", "s")
            try m.append(value)
            try m.closeContainer()
            try m.closeContainer()
        }
        try m.closeContainer()
    }
}
