import Glibc
import ScheddApps
import ScheddBus
import ScheddPush
import Scheduler

/// The daemon's side of the UnifiedPush connector (docs/receiving-pushes.md): what a decrypted push
/// becomes, who an app is, and where the connector logs.
extension Daemon {
    func startPushConnector() throws(BusError) {
        let host = PushConnector.Host(
            serviceName: BusNames.service, objectPath: BusNames.objectPath, preferredDistributor: options.pushDistributor,
            now: { [unowned self] in clock.now },
            apply: { [unowned self] app, plaintext in applyNetworkPush(app: app, plaintext: plaintext) },
            log: { [unowned self] level, text in
                switch level {
                case .info: logger.info(text)
                case .warning: logger.warning(text)
                case .error: logger.error(text)
                }
            },
            resolveApp: { [unowned self] call, declared throws(PushConnectorError) in try pushCaller(of: call, declared: declared) },
            refusal: { [unowned self] call in pushRefusal(call) },
            admit: { [unowned self] call, handler in identity.admit(call, handler) },
            subscribe: { [unowned self] sender, app in _ = subscriptions.subscribe(sender, app: app) },
            signalDestinations: { [unowned self] app in subscriptions.destinations(of: app) })
        let connector = PushConnector(bus: bus, loop: loop, store: store, host: host)
        try connector.start()
        pushConnector = connector
    }

    /// A decrypted push: applied as a push of `app` (in its namespace, under its quota), durable when
    /// this returns.
    private func applyNetworkPush(app: String, plaintext: [UInt8]) -> PushConnector.PushApplication {
        do {
            return .applied(try push(bytes: plaintext, app: app))
        } catch {
            switch error.name {
            case .storage: return .failed(error.message)
            case .quotaExceeded: return .overQuota(error.message)
            default: return .rejected(error.message)
            }
        }
    }

    /// The caller of a registration call (CONTRACT §8), as Identity pinned it: the caller's Flatpak
    /// sandbox, else the declared id, else its app unit, else the default app; it sees every app's
    /// registrations only when it is unsandboxed and runs as the daemon's own uid.
    func pushCaller(of call: BusMessage, declared: String) throws(PushConnectorError) -> PushConnector.PushCaller {
        do {
            let pinned = try identity.caller(of: call)
            let app = try identity.app(of: call, declaring: declared.isEmpty ? nil : declared)
            return PushConnector.PushCaller(app: app.id.rawValue, seesEveryApp: !app.sandboxed && pinned.uid == geteuid())
        } catch {
            switch error.kind {
            case .invalidAppID: throw PushConnectorError(.invalidArgument, "app: \(error.message)")
            case .sandboxed, .unattributable: throw PushConnectorError(.accessDenied, error.message)
            }
        }
    }

    /// The daemon's caller check for the connector's methods (nil: allowed).
    private func pushRefusal(_ call: BusMessage) -> String? {
        guard let callerPolicy else { return nil }
        return refusal(of: call, by: callerPolicy)
    }
}
