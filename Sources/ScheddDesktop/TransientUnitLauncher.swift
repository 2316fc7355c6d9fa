import ScheddApps
import ScheddBus

/// Launches an app's command line outside schedd (CONTRACT §8 "Opening it opens the app"; docs/apps.md
/// "Opened outside schedd"): as a transient unit `app-schedd-<escaped app id>@<random>.service` of the
/// systemd user manager on the session bus (`org.freedesktop.systemd1` `StartTransientUnit`, the way
/// desktop launchers start apps, systemd's XDG application naming), so the app has the user's normal
/// environment, network, home and cgroup, and survives a schedd restart; when no manager owns
/// `org.freedesktop.systemd1` (or it refuses), double fork + setsid (`AppLauncher`), which leaves the
/// app outside schedd's process tree but inside what the service manager imposed on schedd.
///
/// The call is asynchronous (bounded by `timeoutMicroseconds`) and never auto-starts the manager.
/// `completion` gets how it was started — `unit app-schedd-….service` or `detached` plus why — for
/// history's `ran`. Loop thread only.
final class TransientUnitLauncher {
    let launcher = AppLauncher()
    var timeoutMicroseconds: UInt64 = 10_000_000

    static let manager = BusMethod(destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
                                   interface: "org.freedesktop.systemd1.Manager", member: "StartTransientUnit")

    func launch(app: String, arguments: [String], environment: [String: String], on bus: BusConnection?,
                completion: @escaping (_ how: String, _ ok: Bool) -> Void) {
        guard let bus, let program = arguments.first, let path = AppLauncher.resolve(program) else {
            return detached(arguments, environment, because: bus == nil ? "no session bus" : nil, completion)
        }
        let unit = Self.unitName(app: app)
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        do {
            try bus.callAsync(Self.manager, timeoutMicroseconds: timeoutMicroseconds, autoStart: false, { m throws(BusError) in
                try m.append(unit)
                try m.append("fail")
                try m.openContainer("a", "(sv)")
                try Self.property(m, "Description", "s") { () throws(BusError) in try m.append("\(app), opened from a notification by schedd") }
                try Self.property(m, "CollectMode", "s") { () throws(BusError) in try m.append("inactive-or-failed") }
                try Self.property(m, "Environment", "as") { () throws(BusError) in try m.append(variables) }
                try Self.property(m, "ExecStart", "a(sasb)") { () throws(BusError) in
                    try m.openContainer("a", "(sasb)")
                    try m.openContainer("r", "sasb")
                    try m.append(path)
                    try m.append(arguments)
                    try m.append(false)
                    try m.closeContainer()
                    try m.closeContainer()
                }
                try m.closeContainer()
                try m.openContainer("a", "(sa(sv))")
                try m.closeContainer()
            }, completion: { [weak self] result in
                switch result {
                case .success: completion("unit \(unit)", true)
                case .failure(let error):
                    let why = error.isNoOwner ? "no systemd user manager on the bus" : "the systemd user manager refused: \(error.detail)"
                    self?.detached(arguments, environment, because: why, completion)
                }
            })
        } catch {
            detached(arguments, environment, because: "cannot call the systemd user manager: \(error)", completion)
        }
    }

    private func detached(_ arguments: [String], _ environment: [String: String], because reason: String?,
                          _ completion: (String, Bool) -> Void) {
        let how = "detached" + (reason.map { ", \($0)" } ?? "")
        do {
            _ = try launcher.launch(arguments: arguments, environment: environment)
            completion(how, true)
        } catch {
            completion("\(how): \(error)", false)
        }
    }

    private static func property(_ m: BusMessage, _ name: String, _ signature: String,
                                 _ value: () throws(BusError) -> Void) throws(BusError) {
        try m.openContainer("r", "sv")
        try m.append(name)
        try m.openContainer("v", signature)
        try value()
        try m.closeContainer()
        try m.closeContainer()
    }

    /// `app-schedd-<app id escaped as systemd-escape does>@<16 random hex digits>.service`: systemd's XDG
    /// naming for services (`app[-<launcher>]-<ApplicationID>[@<RANDOM>].service`; `-RANDOM` is the
    /// form for scopes), so the app so started is identified as its app id (`SystemdUnit.appID`).
    static func unitName(app: String) -> String {
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return "app-schedd-\(SystemdUnit.escape(app))@\(String(repeating: "0", count: 16 - random.count) + random).service"
    }
}
