import ScheddClientCore
import Glibc
import SchedCalendar
import ScheddBus
import ScheddDesktop
import ScheddPush
import ScheddService
import Scheduler
import SystemZones

/// `schedd run`: owns the process's lifecycle — it opens the loop, the bus, the store and the engine,
/// makes the parts and wires them, serves until SIGTERM, and exits with a failure status when the world
/// breaks so that the service manager restarts it (CONTRACT §9). The parts, each owning its own state:
/// - `BusService` (the path of a call: check, decode once into `SchedulerCall`, identity, dispatch, reply)
///   and `Service` (ScheddService: the one dispatcher, also driven by the dispatch fuzzer);
/// - `Identity` (callers → apps, the caller check, `DeclareApp`);
/// - `GroupCommit` (waiting writes, one transaction), `Delivery` (slices, due timer, notifier outcomes),
///   `StorageMonitor` (storage health), `ServiceClock` (the real or fake clock and its methods);
/// - `PushHost` (UnifiedPush), `ChangeWatches` (clock, zone, tzdata), `DesktopWiring`, `Announcements`.
///
/// Everything runs on the thread that calls `run()`: sd-event dispatches bus calls, the due timer,
/// clock and zone changes and signals one at a time, so a SIGTERM is handled only after the write in
/// progress has committed. Idle, the loop sleeps in epoll until the earliest due instant, a bus message,
/// a change or a signal; no periodic wake-ups except WATCHDOG=1 when the service manager asks for them.
final class Daemon {
    let options: DaemonOptions
    let logger = Logger()
    /// The database's lock (DatabaseLock.swift), held until the process ends.
    let databaseLock: DatabaseLock
    let loop: EventLoop
    let bus: BusConnection
    /// The store under the engine, also holding the UnifiedPush registrations.
    let store: SQLiteScheduleStore
    /// The store's checkpoints, off the loop thread (Daemon_Checkpoint.swift).
    let checkpoints: CheckpointThread
    /// The group commit's syncs of the log, off the loop thread (LogSyncThread.swift); nil when it
    /// could not start (each COMMIT then syncs on the loop).
    let logSync: LogSyncThread?
    /// The engine, bound to the loop thread (STYLE §5): every access checks it is on that thread.
    private let boundEngine: LoopBound<Engine>
    let desktop: DesktopNotifier?
    /// The notifier chosen and why, logged once serving (`makeNotifier`).
    let notifierChoice: String
    let announcer: AnnouncingNotifier
    let clock: ServiceClock
    let storage: StorageMonitor
    let delivery: Delivery
    let cancelSlicing: CancelSlicing
    let groupCommit: GroupCommit
    let service: Service
    let identity: Identity
    /// Which connections receive which app's signals (`Subscribe`; SignalSubscriptions.swift).
    let subscriptions = SignalSubscriptions()
    let busService: BusService
    let watches: ChangeWatches
    let pushHost = PushHost()
    /// What is known of sleep and resume (`Status`), written by `sleepWatch` and `ClockSleep`.
    let sleepState = SleepState()
    /// logind's PrepareForSleep and the clocks (SleepWatch.swift).
    let sleepWatch: SleepWatch
    /// The wake timer on the earliest wake schedule (WakeTimer.swift).
    let wakeArming: WakeArming
    /// Whether wake timers can wake the machine and why not, logged when serving starts (`startSleepAndWake`).
    let wakeLine: String

    init(options: DaemonOptions) throws(CommandFailure) {
        self.options = options
        let zone = try Zones.zone(option: options.zoneName)
        let policy = try options.allowGroup.map { name throws(CommandFailure) in try CallerPolicy(groupName: name) }
        if let slash = options.databasePath.lastIndex(of: "/"), slash != options.databasePath.startIndex {
            try makeDirectories(String(options.databasePath[..<slash]))
        }
        // First of all, before the database is opened and before a bus name is owned: one daemon per
        // database (a second one exits here, having touched neither).
        databaseLock = try DatabaseLock(databasePath: options.databasePath, bus: options.bus)
        do {
            loop = try EventLoop()
            bus = try BusConnection.open(options.bus, description: "schedd-service")
        } catch {
            if options.bus == .session, let missing = missingSessionBus() {
                throw .failure("cannot connect to the session bus: " + missing + ": " + noSessionBusAdvice(daemon: true))
            }
            throw .failure(error.description)
        }
        let connection = bus, logger = logger, subscribers = subscriptions
        let choice = try makeNotifier(options.notifier, notifyBus: options.notifyBus, waitForBus: options.bus == .system)
        desktop = choice.desktop
        notifierChoice = choice.why
        announcer = AnnouncingNotifier(choice.notifier, logger: logger) { shown in
            connection.emitSchedulerSignal("NotificationShown", strings: [shown.id, JSONValue(shown: shown).serialized(), shown.app],
                                           app: shown.app, to: subscribers, log: { logger.warning($0) })
        }
        do {
            store = try SQLiteScheduleStore(path: options.databasePath)
        } catch {
            throw .failure("cannot open the database '\(options.databasePath)': \(error.message)")
        }
        checkpoints = CheckpointThread(path: options.databasePath)
        logSync = LogSyncThread(logPath: store.writeAheadLogPath)
        let durability = logSync.map { [store] device in
            SyncPipeline(device: device, committing: { transactions in store.committingWithoutSync(transactions).deferred })
        }
        // The engine is made after the clock; the parts reach it through this loop-bound accessor.
        var bound: LoopBound<Engine>?
        let engine: () -> Engine = { bound!.value }
        // Each part gets what it needs in its `init`, made in dependency order. Three parts close a cycle and
        // are reached through a `Late` box bound right after they are made (before the loop runs): the
        // delivery (the clock's methods deliver; the delivery reads the clock), the sleep watch (the due timer
        // and the clock-step watch ask it whether the machine slept; it commits and delivers around a sleep)
        // and the change watches (they hand their changes to the delivery; its maintenance re-syncs them).
        let lateDelivery = Late<Delivery>(), lateSleepWatch = Late<SleepWatch>(), lateWatches = Late<ChangeWatches>()
        clock = ServiceClock(fakeStart: options.fakeClockStart, engine: engine, delivery: { lateDelivery.value },
                             zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: logger)
        do {
            let made = try Engine(store: store, notifier: announcer, deviceZone: zone, zones: ZoneDatabase.shared,
                                  retention: options.retention, maxPendingPerApp: options.maxPendingPerApp,
                                  maxBytesPerApp: options.maxBytesPerApp, foldThreshold: options.foldThreshold,
                                  now: clock.asClock.now)
            bound = LoopBound(made, loop: loop)
            boundEngine = bound!
        } catch {
            throw .failure("cannot open the database '\(options.databasePath)': \(error.message)")
        }
        let serving = "Serving \(SchedulerNames.service) on \(options.bus)"
        storage = StorageMonitor(now: { [clock] in clock.now }, serving: { serving }, report: { report, isError in
            if let line = report.log { isError ? logger.error(line) : logger.info(line) }
            if let notify = report.notify { ServiceManager.notify(notify) }
        })
        let eventLoop = loop, fatal = { reason in Daemon.fatal(reason, logger: logger, loop: eventLoop) }
        // Before a wall-clock step is delivered, and before every delivery on the real clock (a due-timer
        // wake, a settle after a commit): the sleep part tells the engine a resume or a clock step it reads
        // from the clocks, so that what is found late is worded by its cause (else it stays as it was).
        let tellClockStep = { lateSleepWatch.value.tellLateCause(clockChanged: true) }
        let tellClocksBeforeDelivery = clock.fake == nil ? { lateSleepWatch.value.tellLateCause(clockChanged: false) } : {}
        // Every part's loop work is a defer source below the bus (LoopPriority gives the order).
        let work = LoopSources(loop: loop)
        let fairQueue = FairQueue(loop: work, log: logger)
        let slicing = CancelSlicing(engine: engine, clock: clock, storage: storage, log: logger,
                                    durability: durability, lanes: fairQueue, loop: work)
        cancelSlicing = slicing
        let wake = Self.makeWakeArming(loop: loop, fakeClock: clock.fake != nil, engine: engine, state: sleepState, logger: logger)
        wakeArming = wake.arming
        wakeLine = wake.line
        let announcer = announcer
        let delivering = Delivery(engine: engine, clock: clock, storage: storage, log: logger, loop: work,
                                  dueTimer: clock.fake == nil ? work.timer : nil,
                                  events: Delivery.Events(settled: { slicing.kick(); wake.arming.rearm() },
                                                          maintained: { lateWatches.value.syncTzdata() },
                                                          failedLate: { announcer.logFailure($0, $1) }, fatal: fatal,
                                                          delivering: tellClocksBeforeDelivery))
        delivery = delivering
        lateDelivery.bind(delivering)
        let announcements = Announcements(bus: bus, logger: logger, subscriptions: subscriptions)
        let committing = GroupCommit(engine: engine, clock: clock, storage: storage, announcer: announcements, log: logger,
                                     durability: durability, loop: work, afterCommit: { delivering.settle() })
        groupCommit = committing
        let decoder = PushBatchDecoder()  // its thread starts with serving (`start`), once signals are blocked
        let status = StatusMembers(options: options, desktop: desktop, notifierChoice: notifierChoice, engine: engine)
        service = Service(engine: engine, clock: clock, delivery: delivery, groupCommit: groupCommit, storage: storage,
                          announcer: announcements, sleep: sleepState, fairQueue: fairQueue, cancelSlicing: slicing,
                          batchDecoder: decoder, statusMembers: status.members)
        if let failure = work.failure { throw .failure("cannot set up the event loop: \(failure)") }
        identity = Identity(bus: bus, logger: logger, callerPolicy: policy, subscriptions: subscriptions)
        busService = BusService(service: service, identity: identity, logger: logger)
        sleepWatch = SleepWatch(state: sleepState, clock: clock, engine: engine, logger: logger,
                                beforeSleep: {
                                    Self.settleBeforeSleep(groupCommit: committing, delivery: delivering, wakeArming: wake.arming,
                                                           bus: connection)
                                },
                                afterResume: { delivering.wallClockChanged() })
        lateSleepWatch.bind(sleepWatch)
        watches = ChangeWatches(engine: engine, clock: clock, delivery: delivery, storage: storage, logger: logger,
                                beforeWallClockChange: tellClockStep)
        lateWatches.bind(watches)
        if clock.fake != nil { sleepState.source = "fake clock (clock sleep), and logind or the clocks" }
    }

    var engine: Engine { boundEngine.value }

    /// Serves until SIGTERM or SIGINT; returns the exit code.
    func run() -> ExitCode {
        do {
            try start()
        } catch {
            logger.error(error.message)
            return .failure
        }
        logger.info(notifierChoice)  // before READY=1: whoever waits for it can read the choice
        ServiceManager.notify("READY=1\nSTATUS=Serving \(SchedulerNames.service) on \(options.bus)")
        checkIntegrityIfUnclean()
        logger.info("serving \(SchedulerNames.service) on \(options.bus)"
                    + (clock.fake.map { _ in " with a fake clock at \(clock.now.rfc3339)" } ?? "")
                    + (identity.callerPolicy.map { " to root and group '\($0.groupName)' (gid \($0.groupID))" } ?? ""))
        let code = loop.run()
        sleepWatch.stop()
        service.batchDecoder?.stop()
        groupCommit.flushAndDrain()
        pushHost.connector?.stop()  // the rejections it still holds (RejectionRecorder)
        logSync?.stop()
        checkpoints.stop()
        desktop?.detach()
        ServiceManager.notify("STOPPING=1")
        logger.info("stopping; group commit: \(groupCommit.statistics.summary)")
        bus.flush()
        return code == 0 ? .success : .failure
    }

    private func start() throws(CommandFailure) {
        do {
            try bus.attach(to: loop)
            try bus.serve(path: SchedulerNames.objectPath, interface: SchedulerNames.interface, vtable: schedulerVtable()) {
                [unowned self] message in busService.handle(message)
            }
            try bus.onDisconnect { [unowned self] in
                fatal("lost the connection to \(options.bus) (the bus daemon stopped or restarted)")
            }
            try identity.start()
            try pushHost.start(bus: bus, loop: loop, store: store, options: options, clock: clock, service: service,
                               identity: identity, storage: storage, logger: logger)
            try bus.requestName(SchedulerNames.service)
            for signal in [SIGTERM, SIGINT] {
                try loop.addSignal(signal) { [unowned self] in
                    logger.info("signal \(signal): finishing")
                    cancelSlicing.stop()  // a job's slices wait for the next start (its rows survive)
                    service.fairQueue.drainAll()  // calls already taken off the bus are answered
                    groupCommit.flushAndDrain()  // and committed, synced and answered
                    loop.exit(0)
                }
            }
            if let logSync, let durability = groupCommit.durability {
                // A sync's report at the bus's priority: the answers it releases go out before more calls are read.
                try loop.addReadable(fd: logSync.reportDescriptor.rawValue) {
                    if let report = logSync.takeReport() { durability.synced(report) }
                }
                if !logSync.start() { logger.warning("cannot start the log's sync thread: the loop syncs the log itself") }
            } else {
                logger.warning("cannot open the write-ahead log for syncing: each group commit syncs at its COMMIT")
            }
            let decoding = service.batchDecoder?.start { body in
                guard let thread = startDaemonThread(body) else { return false }
                thread.detach()
                return true
            } ?? false
            if !decoding { logger.warning("cannot start the decoding thread: PushBatch calls are decoded on the loop") }
            try watches.start(loop: loop, watchDeviceZone: options.zoneName == nil) { [unowned self] in fatal($0) }
            startSleepAndWake()
            if !checkpoints.start(handingOver: store) {
                logger.warning("cannot start the checkpoint thread: the loop's commits checkpoint the log themselves")
            }
            if try loop.enableWatchdog() { logger.info("feeding the service manager's watchdog from the event loop") }
        } catch {
            throw .failure(error.description)
        }
        if let desktop {
            try DesktopWiring.attach(desktop, loop: loop, bus: bus, engine: { [unowned self] in engine }, clock: clock,
                                     delivery: delivery, announcer: announcer, subscriptions: subscriptions, logger: logger)
        }
        delivery.settle()
    }

    /// Logs `reason`, tells the service manager (`STATUS=`), and makes the loop return with a failure
    /// status after the current callback. Nothing half-done is left: every write is one transaction.
    func fatal(_ reason: String) { Self.fatal(reason, logger: logger, loop: loop) }

    /// `fatal`, for the parts made before the daemon is whole (their `init` takes it).
    static func fatal(_ reason: String, logger: Logger, loop: EventLoop) {
        logger.error("\(reason); exiting so that the service manager restarts schedd")
        ServiceManager.notify("STATUS=Failed: \(reason)")
        loop.exit(EXIT_FAILURE)
    }
}

/// `schedd run`.
func runDaemonCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let daemon = try Daemon(options: DaemonOptions(args))
    return daemon.run()
}
