import ScheddApps
import ScheddBus

/// Runs what opening a notification plans (`AppActivation.Plan`, CONTRACT §8) and reports what ran and
/// whether it worked:
/// - `org.freedesktop.Application` calls go asynchronously on the notifier's session-bus connection
///   (where apps own their names), bounded by `timeoutMicroseconds` (D-Bus activation may start the
///   app first); the loop keeps serving meanwhile. Success = the app replied without an error.
/// - launches start the desktop file's command line outside schedd (`TransientUnitLauncher`: a
///   transient `app-schedd-….service` of the user's systemd manager, else double fork + setsid);
///   success = it started; `ran` says which way.
/// - `.nothing` reports at once, not ok.
/// `completion` runs exactly once: at once for `.nothing` and a launch without a session bus, in a later dispatch of the
/// connection for calls. Not thread-safe: the loop thread.
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
                    case .success: completion(ran, true)
                    case .failure(let error): completion(ran + " (\(error))", false)
                    }
                })
            } catch {
                completion(ran + " (\(error))", false)
            }
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
