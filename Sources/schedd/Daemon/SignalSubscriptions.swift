import ScheddBus

/// Who receives schedd's signals (CONTRACT §8 "Nothing of another app"; docs/apps.md "Listening"):
/// nothing with content is broadcast. A connection calls `Subscribe()` and from then on receives its
/// app's signals (NotificationShown/Cancelled/Opened/Dismissed of org.schedd.Scheduler1,
/// EndpointChanged/Unregistered of org.schedd.UnifiedPush1) as unicast signals addressed to it; an
/// unsandboxed caller may call `SubscribeAllApps()` instead. A subscription ends when the connection
/// leaves the bus (Identity's departure hook).
///
/// Bounds: at most `maxAppsPerConnection` apps per connection (an unsandboxed caller can declare and
/// subscribe to several) and `maxConnections` subscribed connections; over either, Subscribe is
/// refused. Emitting costs one message per subscribed connection of the app. Loop thread only.
final class SignalSubscriptions {
    static let maxAppsPerConnection = 64
    static let maxConnections = 4096

    private var everyApp: Set<String> = []
    private var byApp: [String: Set<String>] = [:]
    private var appsOf: [String: Set<String>] = [:]

    /// Subscribes connection `sender` to the signals of `app`, or of every app (`app` nil). Returns
    /// the refusal text when a bound is reached.
    func subscribe(_ sender: String, app: String?) -> String? {
        let known = appsOf[sender] != nil || everyApp.contains(sender)
        if !known && appsOf.count + everyApp.count >= Self.maxConnections {
            return "schedd keeps the signal subscriptions of at most \(Self.maxConnections) connections"
        }
        guard let app else {
            everyApp.insert(sender)
            return nil
        }
        var apps = appsOf[sender] ?? []
        if !apps.contains(app) {
            guard apps.count < Self.maxAppsPerConnection else {
                return "a connection subscribes to at most \(Self.maxAppsPerConnection) apps; use SubscribeAllApps"
            }
            apps.insert(app)
            byApp[app, default: []].insert(sender)
        }
        appsOf[sender] = apps
        return nil
    }

    /// Forgets every subscription of `sender` (it left the bus).
    func drop(_ sender: String) {
        everyApp.remove(sender)
        for app in appsOf.removeValue(forKey: sender) ?? [] {
            byApp[app]?.remove(sender)
            if byApp[app]?.isEmpty == true { byApp[app] = nil }
        }
    }

    /// The connections that receive the signals of `app`, each once.
    func destinations(of app: String) -> Set<String> {
        guard let own = byApp[app] else { return everyApp }
        return everyApp.isEmpty ? own : own.union(everyApp)
    }

    /// Sends signal `member` (string arguments) of `interface` at `path` to each subscriber of `app`;
    /// returns the failures, for the log.
    func emit(on bus: BusConnection, path: String, interface: String, member: String, strings: [String],
              app: String) -> [BusError] {
        var failures: [BusError] = []
        for destination in destinations(of: app) {
            do throws(BusError) {
                try bus.emitSignal(path: path, interface: interface, member: member, destination: destination) {
                    m throws(BusError) in for s in strings { try m.append(s) }
                }
            } catch {
                failures.append(error)
            }
        }
        return failures
    }
}
