import ScheddClientCore
import ScheddApps
import ScheddBus
import ScheddPush
import Scheduler

/// The daemon's side of the UnifiedPush connector (docs/receiving-pushes.md): what a decrypted push
/// becomes, who an app is, and where the connector logs.
extension Daemon {
    func startPushConnector() throws(BusError) {
        let host = PushConnector.Host(
            serviceName: SchedulerNames.service, objectPath: SchedulerNames.objectPath, preferredDistributor: options.pushDistributor,
            now: { [unowned self] in clock.now },
            apply: { [unowned self] app, plaintext in applyNetworkPush(app: app, plaintext: plaintext) },
            log: { [unowned self] level, text in
                switch level {
                case .info: logger.info(text)
                case .warning: logger.warning(text)
                case .error: logger.error(text)
                }
            },
            resolveApp: { call, declared throws(PushConnectorError) in try Self.pushApp(of: call, declared: declared) },
            refusal: { [unowned self] call in pushRefusal(call) })
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

    /// The app a registration call acts for (CONTRACT §8): the caller's Flatpak sandbox, else the
    /// declared id, else its app unit, else the default app.
    static func pushApp(of call: BusMessage, declared: String) throws(PushConnectorError) -> String {
        let facts: ProcessFacts
        do {
            let creds = try call.senderCredentials()
            facts = try ProcessInspector.facts(pid: creds.pid ?? 0)
        } catch let error as CallerIdentityError {
            throw PushConnectorError(.invalidArgument, "cannot tell which app is calling: \(error.message)")
        } catch {
            throw PushConnectorError(.invalidArgument, "cannot tell which app is calling: \(error)")
        }
        do {
            return try CallerIdentity.resolve(facts, declared: declared.isEmpty ? nil : declared).id.rawValue
        } catch {
            throw PushConnectorError(.invalidArgument, "app: \(error.message)")
        }
    }

    /// The daemon's caller check for the connector's methods (nil: allowed).
    private func pushRefusal(_ call: BusMessage) -> String? {
        guard let callerPolicy else { return nil }
        return refusal(of: call, by: callerPolicy)
    }
}
