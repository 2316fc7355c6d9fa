import ScheddBus
import CSystemd
import Glibc
import SchedCalendar
import ScheddDesktop
import Scheduler
import ScheddPush

/// `schedd run`: connects the engine to the bus, the event loop, the clock and the notifier.
///
/// Holds no scheduling rules (those are the engine's). Everything runs on the thread that calls
/// `run()`: sd-event dispatches bus calls, the due timer, clock and zone changes and signals one at
/// a time, so a SIGTERM is handled only after the write in progress has committed.
///
/// Idle behaviour: the loop sleeps in epoll until the earliest due instant (an absolute
/// `CLOCK_REALTIME` timer), a bus message, a clock or zone change or a signal. No periodic wake-ups,
/// except WATCHDOG=1 pings when the service manager asked for them.
final class Daemon {
    let options: DaemonOptions
    let logger = Logger()
    let loop: EventLoop
    let bus: BusConnection
    /// The engine, bound to the loop thread (STYLE §5): every access checks it is on that thread.
    private let boundEngine: LoopBound<Engine>
    var engine: Engine { boundEngine.value }
    /// The fake clock (`--fake-clock`), or nil when running on `CLOCK_REALTIME`.
    let fakeClock: FakeClock?
    let clock: any Clock
    /// The desktop notifier when notifications go to org.freedesktop.Notifications.
    let desktop: DesktopNotifier?
    /// The caller check (`--allow-group`, default with `--bus system`); nil serves every caller.
    let callerPolicy: CallerPolicy?
    /// Group-database lookups of callers' uids (cached) and the rate limit of refusal log lines.
    let groupMembership = GroupMembership()
    var refusalLog = RateLimitedLog()
    var dueTimer: EventTimer?
    /// The notifier wrapper that logs and announces shown notifications.
    let announcer: AnnouncingNotifier
    /// Group commit (Daemon_GroupCommit.swift): write calls waiting for the commit, and its trigger.
    var pendingWrites: [PendingWrite] = []
    var commitTrigger: EventTrigger?
    /// Sliced delivery (Daemon_Delivery.swift): the mode of the delivery under way, its trigger, and
    /// the clock calls waiting for it to finish.
    var deliveryMode: AdvanceMode?
    var continueTrigger: EventTrigger?
    var repliesAfterDelivery: [(call: BusDeferredCall, text: () -> String)] = []
    /// Late answers of the desktop notifier, recorded by `failureTrigger`.
    var lateFailures: [(DueNotification, String)] = []
    var retryWanted = false
    var failureTrigger: EventTrigger?
    /// Who is calling: connection → pinned process → app (Identity.swift), for every interface.
    let identity: Identity
    /// Which connections receive which app's signals (`Subscribe`; SignalSubscriptions.swift).
    let subscriptions = SignalSubscriptions()
    /// Whether the database works; the back-off and log rate limit while it does not (Daemon_Storage).
    var storageHealth = StorageHealth()
    private var clockWatch: ClockChangeWatch?
    private var zoneWatch: ZoneChangeWatch?
    /// The zone files in use, for tzdata updates (CONTRACT §2).
    var tzdataWatch: TzdataWatch?
    /// The store under the engine, also holding the UnifiedPush registrations.
    let store: SQLiteScheduleStore
    /// schedd as a UnifiedPush connector (docs/receiving-pushes.md); set by `start`.
    var pushConnector: PushConnector?

    init(options: DaemonOptions) throws(CommandFailure) {
        self.options = options
        let zone = try Zones.zone(option: options.zoneName)
        callerPolicy = try options.allowGroup.map { name throws(CommandFailure) in try CallerPolicy(groupName: name) }
        if let start = options.fakeClockStart {
            let fake = FakeClock(start)
            fakeClock = fake
            clock = fake
        } else {
            fakeClock = nil
            clock = SystemClock()
        }
        do {
            loop = try EventLoop()
        } catch {
            throw .failure(error.description)
        }
        do {
            bus = try BusConnection.open(options.bus, description: "schedd-service")
        } catch {
            throw .failure(error.description)
        }
        if let slash = options.databasePath.lastIndex(of: "/"), slash != options.databasePath.startIndex {
            try makeDirectories(String(options.databasePath[..<slash]))
        }
        let connection = bus
        identity = Identity(bus: bus)
        let subscribers = subscriptions, log = logger
        let choice = try makeNotifier(options.notifier, notifyBus: options.notifyBus, waitForBus: options.bus == .system)
        desktop = choice.desktop
        let notifier = AnnouncingNotifier(choice.notifier, logger: logger) { shown in
            connection.emitSchedulerSignal("NotificationShown", strings: [shown.id, JSONValue(shown: shown).serialized(), shown.app],
                                           app: shown.app, to: subscribers, log: { log.warning($0) })
        }
        announcer = notifier
        do {
            store = try SQLiteScheduleStore(path: options.databasePath)
        } catch {
            throw .failure("cannot open the database '\(options.databasePath)': \(error.message)")
        }
        do {
            let engine = try Engine(store: store, notifier: notifier, deviceZone: zone, retention: options.retention,
                                    maxPendingPerApp: options.maxPendingPerApp,
                                    now: clock.now)
            boundEngine = LoopBound(engine, loop: loop)
        } catch {
            throw .failure("cannot open the database '\(options.databasePath)': \(error.message)")
        }
    }

    /// Serves until SIGTERM or SIGINT; returns the exit code.
    func run() -> ExitCode {
        do {
            try start()
        } catch {
            logger.error(error.message)
            return .failure
        }
        ServiceManager.notify("READY=1\nSTATUS=\(servingStatus)")
        logger.info("serving \(BusNames.service) on \(options.bus)"
                    + (fakeClock.map { _ in " with a fake clock at \(clock.now.rfc3339)" } ?? "")
                    + (callerPolicy.map { " to root and group '\($0.groupName)' (gid \($0.groupID))" } ?? ""))
        let code = loop.run()
        desktop?.detach()
        ServiceManager.notify("STOPPING=1")
        logger.info("stopping")
        bus.flush()
        return code == 0 ? .success : .failure
    }

    private func start() throws(CommandFailure) {
        do {
            try bus.attach(to: loop)
            try bus.serve(path: BusNames.objectPath, interface: BusNames.interface, vtable: schedulerVtable()) {
                [unowned self] message in identity.admit(message) { [unowned self] m in handle(m) }
            }
            try bus.onDisconnect { [unowned self] in busLost() }
            try identity.start()
            identity.onDeparture { [unowned self] name in subscriptions.drop(name) }
            try startPushConnector()
            try bus.requestName(BusNames.service)
        } catch {
            throw .failure(error.description)
        }
        do {
            for signal in [SIGTERM, SIGINT] {
                try loop.addSignal(signal) { [unowned self] in
                    logger.info("signal \(signal): finishing")
                    flushWrites()  // calls already taken off the bus are committed and answered
                    loop.exit(0)
                }
            }
            // Below the bus (0): after every message already waiting was handed over. The group commit
            // before a delivery slice, so that calls are answered during a long catch-up.
            commitTrigger = try loop.addTrigger(priority: 10) { [unowned self] in flushWrites() }
            failureTrigger = try loop.addTrigger(priority: 15) { [unowned self] in recordLateFailures() }
            continueTrigger = try loop.addTrigger(priority: 20) { [unowned self] in continueDelivery() }
            dueTimer = try loop.addTimer(clock: .realtime) { [unowned self] in dueTimerFired() }
            if fakeClock == nil {
                let watch = try ClockChangeWatch()
                clockWatch = watch
                try loop.addReadable(fd: watch.fd) { [unowned self] in
                    do {
                        if try watch.consumeChange() { wallClockChanged() }
                    } catch {
                        fatal("clock-step detection failed (\(error)): wall-clock changes would go unnoticed")
                    }
                }
            }
            if options.zoneName == nil {
                let watch = try ZoneChangeWatch(paths: zoneFilePaths())
                zoneWatch = watch
                try loop.addReadable(fd: watch.fd) { [unowned self] in
                    do {
                        if try watch.consumeChange() { deviceZoneFileChanged() }
                    } catch {
                        fatal("device-zone detection failed (\(error)): zone changes would go unnoticed")
                    }
                }
            }
            let tzdata = try TzdataWatch(database: ZoneDatabase.shared)
            tzdataWatch = tzdata
            do { try tzdata.sync(engine.zoneNamesInUse) } catch {
                logger.warning("cannot watch a zone file in use for tzdata updates: \(error)")
            }
            try loop.addReadable(fd: tzdata.fd) { [unowned self] in
                do {
                    if try tzdata.consumeChange() { zoneFilesChanged() }
                } catch {
                    fatal("tzdata-update detection failed (\(error)): zone file updates would go unnoticed")
                }
            }
            if try loop.enableWatchdog() { logger.info("feeding the service manager's watchdog from the event loop") }
        } catch {
            throw .failure(error.description)
        }
        if let desktop { try attachDesktop(desktop) }
        settle()
    }

    /// The files whose change is a device-zone change: /etc/localtime, or the zone file `TZ` names.
    private func zoneFilePaths() -> [String] {
        guard let tz = environment("TZ"), !tz.isEmpty else { return ["/etc/localtime"] }
        let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if name.hasPrefix("/") { return [name] }
        let directory = environment("TZDIR") ?? "/usr/share/zoneinfo"
        return name.contains(",") ? [] : [directory + "/" + name]
    }

    /// Delivers whatever is due by the clock (late or missed per CONTRACT §3 when the clock jumped
    /// or the daemon was down), then sleeps until the next due instant. Called after every change.
    /// While a sliced delivery is under way (Daemon_Delivery.swift), it settles when done; while storage
    /// fails, firings wait for the back-off (Daemon_Storage) instead of retrying at once.
    func settle() {
        guard deliveryMode == nil else { return }
        let now = clock.now
        if let due = engine.nextDue, due <= now { deliverDue(now: now, mode: .wallClock) }
        guard deliveryMode == nil else { return }
        maintainWhenIdle(now: now)
        if fakeClock == nil { armDueTimer(at: dueWakeUp(engine.nextDue)) }
    }

    /// How late the due timer may wake and still count as on time: the loop's dispatch latency
    /// (about a millisecond here), far below any grace. A later wake means the process was stopped or
    /// starved, and is judged late like a clock jump (suspend/resume is reported as a clock change).
    static let timerLatencyToleranceMicroseconds: Int64 = 1_000_000

    /// The due timer fired: time passed normally, so what is due fires on time (history `late` 0),
    /// unless the wake-up came implausibly late.
    private func dueTimerFired() {
        guard deliveryMode == nil else { return }
        let now = clock.now
        if let due = engine.nextDue, due <= now, now.microseconds - due.microseconds < Self.timerLatencyToleranceMicroseconds {
            deliverDue(now: now, mode: .timePassing)
        }
        settle()
    }

    private func wallClockChanged() {
        logger.info("the wall clock changed; now \(clock.now.rfc3339)")
        deliverDue(now: clock.now, mode: .wallClock)
        settle()
    }

    private func deviceZoneFileChanged() {
        do {
            let zone = try ZoneDatabase().deviceZone(tz: environment("TZ"))
            if zone.name == engine.deviceZone.name {
                zoneFilesChanged()  // the same zone, its file replaced: a tzdata update
                return
            }
            logger.info("the device zone is now \(zone.name)")
            _ = try engine.deviceZoneChanged(to: zone, now: clock.now)
        } catch let error as ZoneError {
            logger.warning("the device zone changed but cannot be read: \(error.message)")
        } catch {
            logger.error("re-evaluating after a zone change failed: \(error)")
        }
        settle()
    }

    /// Lets the loop drive the desktop notifier; records and announces what the person did with a
    /// notification, and retries failed deliveries when a notification server appears.
    private func attachDesktop(_ desktop: DesktopNotifier) throws(CommandFailure) {
        do {
            try desktop.attach(to: loop)
        } catch {
            throw .failure("cannot attach the desktop notifier: \(error.description)")
        }
        desktop.onInteraction = { [unowned self] i in
            do throws(EngineError) {
                try engine.recordInteraction(app: i.app, id: i.id, event: i.event, reason: i.reason, ran: i.ran,
                                             ok: i.ok, now: clock.now)
            } catch {
                logger.error("recording \(i.event.rawValue) failed: \(error.message)", id: i.id)
            }
            logger.info(i.event.rawValue + (i.reason.map { " (\($0))" } ?? "") + (i.ran.map { ", ran \($0)" } ?? "")
                        + (i.ok.map { $0 ? ": ok" : ": failed" } ?? "") + " [\(i.app)]", id: i.id, run: runId(of: i.id))
            switch i.event {
            case .opened:
                let action = i.reason.map { $0.hasPrefix("action:") ? String($0.dropFirst(7)) : $0 } ?? "default"
                signal("NotificationOpened", [i.id, action, i.app], app: i.app)
            case .dismissed: signal("NotificationDismissed", [i.id, i.app], app: i.app)
            default: break
            }
        }
        desktop.onSnooze = { [unowned self] notification, seconds in
            do throws(EngineError) {
                try engine.snooze(notification, seconds: seconds, now: clock.now)
                logger.info("snoozed for \(seconds) s [\(notification.app)]", id: notification.id, run: notification.runId)
            } catch {
                logger.error("recording snoozed failed: \(error.message)", id: notification.id)
            }
            settle()
        }
        desktop.onServerAppeared = { [unowned self] in retryWhenServerAppeared() }
        desktop.onDelivered = { [unowned self] notification in announcer.announceShown(notification) }
        desktop.onDeliveryFailed = { [unowned self] notification, reason in deliveryFailedLater(notification, reason) }
        desktop.onProblem = { [unowned self] line in logger.warning(line) }
    }

    /// Announces cancelled ids of `app` on the bus (`NotificationCancelled`, with the reason and the app).
    func announceCancelled(_ ids: [String], reason: String, app: String) {
        for id in ids {
            logger.info("cancelled (\(reason)) [\(app)]", id: id, run: runId(of: id))
            signal("NotificationCancelled", [id, reason, app], app: app)
        }
    }

    /// Sends a signal of `app` to its subscribed connections (unicast; SignalSubscriptions).
    func signal(_ member: String, _ strings: [String], app: String) {
        bus.emitSchedulerSignal(member, strings: strings, app: app, to: subscriptions, log: { [unowned self] in logger.warning($0) })
    }
}

/// `schedd run`.
func runDaemonCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let daemon = try Daemon(options: DaemonOptions(args))
    return daemon.run()
}
