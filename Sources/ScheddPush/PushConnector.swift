import CSchedBus
import SchedCalendar
import ScheddBus
import ScheddProtocol
import Scheduler

/// schedd as a UnifiedPush connector (D-Bus spec DBUS_0.3.0) for every app that registers through it.
///
/// Serves `org.unifiedpush.Connector2` and `org.unifiedpush.Connector1` at `/org/unifiedpush/Connector`
/// on schedd's own bus name, and `org.schedd.UnifiedPush1` (Register, Unregister, List; signals
/// EndpointChanged, Unregistered) at schedd's object path. One registration per app, each with its own
/// connection token and Web Push keys, stored durably (`RegistrationTable`). A `Message` is
/// decrypted with its registration's keys (RFC 8291) and handed to `Host.apply` as a push for that app;
/// the reply goes out only after `apply` returned, that is after the push is durable. A message whose
/// bytes the app's replay window holds (`PushReplayTable`) is acknowledged and changes nothing.
///
/// Loop thread only: every callback (bus calls, replies, signals, the timer) runs on the daemon's
/// event loop, one at a time. Distributor calls are asynchronous (`callAsync`, bounded by timeouts):
/// the loop never waits on a distributor.
public final class PushConnector {
    /// What the daemon provides.
    public struct Host {
        /// schedd's well-known bus name: the `service` sent with Register.
        public let serviceName: String
        /// schedd's object path, where org.schedd.UnifiedPush1 is served and its signals come from.
        public let objectPath: String
        /// The distributor override (a full bus name or its suffix), nil for the rule's own choice.
        public let preferredDistributor: String?
        public let now: () -> Instant
        /// Applies a decrypted push for `app`; durable when it returns. `alongside` (recording the message
        /// in the replay window) runs in the push's transaction: durable with it, undone with it.
        public let apply: (_ app: String, _ plaintext: [UInt8], _ alongside: () throws(StoreError) -> Void) -> PushApplication
        public let log: (_ level: PushLogLevel, _ text: String) -> Void
        /// The daemon's storage health, told of the connector's own writes (PushConnector_StorageHooks.swift);
        /// a write reported there is not logged through `log` as well.
        public let storage: StorageHooks
        /// The caller of an admitted call to org.schedd.UnifiedPush1, from the caller and the `app`
        /// argument ("" when none was given); throws the refusal. A lookup, no bus round trip.
        public let resolveApp: (_ call: BusMessage, _ declared: String) throws(PushConnectorError) -> PushCaller
        /// Nil when the sender of an admitted call may call at all, else the AccessDenied text.
        public let refusal: (_ call: BusMessage) -> String?
        /// The daemon's identity gate (one for every interface): runs the handler once the caller's
        /// connection is pinned, answers the call with its result, or refuses it.
        public let admit: (_ call: BusMessage, _ handler: @escaping (BusMessage) -> BusMethodResult) -> BusMethodResult
        /// Subscribes connection `sender` to `app`'s signals (an app that registers hears its endpoint).
        public let subscribe: (_ sender: String, _ app: String) -> Void
        /// The connections that receive `app`'s signals (unicast; never a broadcast).
        public let signalDestinations: (_ app: String) -> Set<String>

        public init(serviceName: String, objectPath: String, preferredDistributor: String?, now: @escaping () -> Instant,
                    apply: @escaping (String, [UInt8], () throws(StoreError) -> Void) -> PushApplication,
                    log: @escaping (PushLogLevel, String) -> Void,
                    storage: StorageHooks,
                    resolveApp: @escaping (BusMessage, String) throws(PushConnectorError) -> PushCaller,
                    refusal: @escaping (BusMessage) -> String?,
                    admit: @escaping (BusMessage, @escaping (BusMessage) -> BusMethodResult) -> BusMethodResult,
                    subscribe: @escaping (String, String) -> Void,
                    signalDestinations: @escaping (String) -> Set<String>) {
            self.serviceName = serviceName; self.objectPath = objectPath
            self.preferredDistributor = preferredDistributor; self.now = now; self.apply = apply; self.log = log
            self.storage = storage
            self.resolveApp = resolveApp; self.refusal = refusal; self.admit = admit
            self.subscribe = subscribe; self.signalDestinations = signalDestinations
        }
    }

    /// Who calls org.schedd.UnifiedPush1: the app the call acts for, and whether it may read every
    /// app's registrations (an unsandboxed caller of the daemon's own uid).
    public struct PushCaller: Sendable {
        public var app: String
        public var seesEveryApp: Bool
        public init(app: String, seesEveryApp: Bool) { self.app = app; self.seesEveryApp = seesEveryApp }
    }

    /// What became of a decrypted push.
    public enum PushApplication {
        /// Applied (durable); the outcome JSON for the log.
        case applied(String)
        /// Not a valid push (or refused by a rule): never retried with any hope of success.
        case rejected(String)
        /// The store failed: the distributor must retry (no acknowledgement).
        case failed(String)
        /// The app is at its quota of pending schedules: not applied and not acknowledged, so the
        /// push server keeps it and it applies once the app has room.
        case overQuota(String)
    }

    public enum PushLogLevel: Sendable { case info, warning, error }

    /// The connector's object path and interfaces (UnifiedPush D-Bus spec).
    public static let connectorPath = "/org/unifiedpush/Connector"
    public static let connector2 = "org.unifiedpush.Connector2"
    public static let connector1 = "org.unifiedpush.Connector1"
    public static let distributorPath = "/org/unifiedpush/Distributor"
    public static let distributor2 = "org.unifiedpush.Distributor2"
    /// schedd's interface for apps.
    public static let interface = UnifiedPushNames.interface
    /// How long an app's Register call waits for the endpoint before it is answered without one.
    static let endpointWaitMicroseconds: UInt64 = 10_000_000
    /// Bound of a Register/Unregister call to a distributor (KUnifiedPush answers Register only once
    /// its push server answered, so this allows a slow network).
    static let distributorCallMicroseconds: UInt64 = 60_000_000
    /// Registrations kept at most: one row per app, and any unsandboxed caller can name new apps, so the
    /// table is bounded here (far above the apps one person has; List stays a small reply).
    public static let maximumRegistrations = 1000
    /// A distributor that unregisters an app is answered with a new Register at most this often per app.
    static let reregisterIntervalMicroseconds: UInt64 = 60_000_000

    let bus: BusConnection
    let loop: EventLoop
    let store: SQLiteScheduleStore
    let host: Host
    /// A distributor's `Message`, checked, decrypted and applied (MessageIntake.swift).
    let messages: MessageIntake
    /// Rejected messages, recorded at most once a second per app (RejectionRecorder.swift).
    let rejections: RejectionRecorder
    /// The distributors on the bus and whom schedd trusts to speak for them (DistributorPresence.swift).
    var distributors = DistributorPresence()
    /// Per app: what happened last (registering, failed …), for List and the Register reply.
    var states: [String: RegistrationState] = [:]
    /// App Register calls waiting for their endpoint (EndpointWaiters.swift).
    var waiters = EndpointWaiters()
    /// Tokens whose Unregister schedd sent: the distributor's Unregistered is then a confirmation.
    var unregistering: Set<String> = []
    /// The throttle of warnings that peers cause (PushConnector_PeerWarnings.swift).
    var peerWarnings = PeerWarnings()
    /// When each app was last re-registered after its distributor unregistered it (monotonic µs).
    var lastReregister: [String: UInt64] = [:]

    /// The answer of a handler that outlived its connector (the daemon is shutting down).
    static var gone: BusMethodResult { .failed(name: "org.freedesktop.DBus.Error.Failed", message: "schedd is stopping") }

    // Every callback handed to the bus or the loop holds the connector weakly: pending calls are
    // completed (with an error) when the connection closes, which can be after the connector is gone.
    public init(bus: BusConnection, loop: EventLoop, store: SQLiteScheduleStore, host: Host) {
        self.bus = bus
        self.loop = loop
        self.store = store
        self.host = host
        rejections = RejectionRecorder(store: store, loop: loop, log: host.log, storage: host.storage)
        messages = MessageIntake(store: store, host: host, rejections: rejections)
    }

    /// Serves the interfaces, watches distributors come and go, and re-registers every stored
    /// registration (same token) once the names on the bus are known.
    public func start() throws(BusError) {
        let admit = host.admit
        try bus.serve(path: Self.connectorPath, interface: Self.connector2, vtable: schedbus_connector2_vtable()) {
            [weak self] message in admit(message) { [weak self] m in self?.handleConnector(m, version: 2) ?? Self.gone }
        }
        try bus.serve(path: Self.connectorPath, interface: Self.connector1, vtable: schedbus_connector1_vtable()) {
            [weak self] message in admit(message) { [weak self] m in self?.handleConnector(m, version: 1) ?? Self.gone }
        }
        try bus.serve(path: host.objectPath, interface: Self.interface, vtable: schedbus_unifiedpush_vtable()) {
            [weak self] message in admit(message) { [weak self] m in self?.handleApp(m) ?? Self.gone }
        }
        waiters.timer = try loop.addTimer(clock: .monotonic) { [weak self] in self?.expireWaiters() }
        try rejections.start()
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                         + "member='NameOwnerChanged',arg0namespace='org.unifiedpush.Distributor'") {
            [weak self] message in self?.nameOwnerChanged(message)
        }
        try listDistributors()
    }

    /// The daemon is stopping: writes the rejections still held (RejectionRecorder).
    public func stop() {
        rejections.flush()
    }
}
