import ScheddClientCore
import ScheddDesktop
import ScheddBus
import ScheddPush
import ScheddService
import Scheduler

/// The UnifiedPush host part (docs/receiving-pushes.md): owns schedd's UnifiedPush connector — what a
/// decrypted push becomes (a push of the app through the service), who a registering app is (the
/// identity part), where the connector logs, and that its writes report to the storage health.
final class PushHost {
    private(set) var connector: PushConnector?

    /// Starts the connector on `bus`; registrations live in `store`.
    func start(bus: BusConnection, loop: EventLoop, store: SQLiteScheduleStore, options: DaemonOptions,
               clock: ServiceClock, service: Service, identity: Identity, storage: StorageMonitor,
               logger: Logger) throws(BusError) {
        let host = PushConnector.Host(
            serviceName: SchedulerNames.service, objectPath: SchedulerNames.objectPath, preferredDistributor: options.pushDistributor,
            now: { clock.now },
            apply: { app, plaintext, alongside in Self.apply(service, app: app, plaintext: plaintext, alongside: alongside) },
            log: { level, text in
                switch level {
                case .info: logger.info(text)
                case .warning: logger.warning(text)
                case .error: logger.error(text)
                }
            },
            // The connector's own writes (registrations, the replay record of an invalid push, rejection
            // counts) report to the storage health like every other write; a failure counts without moving
            // the firings' back-off (each of those writes fails its call, or the recorder backs off itself).
            // The push itself is not among them: `service.push` reports it.
            storage: PushConnector.StorageHooks(
                failed: { what, error in
                    storage.failed(what, ServiceFailure(.storage, error.message, storeCause: error), backOff: false)
                },
                succeeded: { storage.succeeded() }),
            resolveApp: { call, declared throws(PushConnectorError) in try identity.pushCaller(of: call, declared: declared) },
            refusal: { call in identity.refusal(of: call) },
            admit: { call, handler in identity.admit(call, handler) },
            subscribe: { sender, app in _ = identity.subscriptions.subscribe(sender, app: app) },
            signalDestinations: { app in identity.subscriptions.destinations(of: app) })
        let connector = PushConnector(bus: bus, loop: loop, store: store, host: host)
        try connector.start()
        self.connector = connector
    }

    /// A decrypted push: applied as a push of `app` (in its namespace, under its quota), durable when
    /// this returns. Each failure kind to the connector's answer, explicitly. A message comes from the
    /// network, never from the person: it is held to the sandboxed rules whatever app registered
    /// (http, https and the app's declared schemes as links; no local file as link, icon or image).
    /// `alongside` (the connector's replay window) commits in the push's transaction.
    private static func apply(_ service: Service, app: String, plaintext: [UInt8],
                              alongside: () throws(StoreError) -> Void) -> PushConnector.PushApplication {
        do {
            let rules = Identity.pushRules(app: app, in: AppDirectory.fromEnvironment())
            return .applied(try service.push(bytes: plaintext, app: app, rules: rules, alongside: alongside))
        } catch {
            switch error.name {
            case .storage: return .failed(error.message)
            case .quotaExceeded: return .overQuota(error.message)
            case .invalidPush, .invalidArgument, .notFound, .notFakeClock, .usage, .accessDenied: return .rejected(error.message)
            }
        }
    }
}
