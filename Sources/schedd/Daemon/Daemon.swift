import CSystemd
import Glibc
import SchedCalendar
import Scheduler

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
    let engine: Engine
    /// The fake clock (`--fake-clock`), or nil when running on `CLOCK_REALTIME`.
    let fakeClock: FakeClock?
    let clock: any Clock
    private var dueTimer: RealtimeTimer?
    private var clockWatch: ClockChangeWatch?
    private var zoneWatch: ZoneChangeWatch?

    init(options: DaemonOptions) throws(CommandFailure) {
        self.options = options
        let zone = try Zones.zone(option: options.zoneName)
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
            throw .failure(error.message)
        }
        do {
            bus = try BusConnection.open(options.bus)
        } catch {
            throw .failure(error.message)
        }
        if let slash = options.databasePath.lastIndex(of: "/"), slash != options.databasePath.startIndex {
            try makeDirectories(String(options.databasePath[..<slash]))
        }
        let connection = bus
        let notifier = AnnouncingNotifier(makeNotifier(options.notifier), logger: logger) { shown in
            connection.emitSignal("NotificationShown", strings: [shown.id, JSONValue(shown: shown).serialized()])
        }
        do {
            engine = try Engine(databasePath: options.databasePath, notifier: notifier, deviceZone: zone, now: clock.now)
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
        ServiceManager.notify("READY=1\nSTATUS=Serving \(BusNames.service) on \(options.bus)")
        logger.info("serving \(BusNames.service) on \(options.bus)"
                    + (fakeClock.map { _ in " with a fake clock at \(clock.now.rfc3339)" } ?? ""))
        let code = loop.run()
        ServiceManager.notify("STOPPING=1")
        logger.info("stopping")
        bus.flush()
        return code == 0 ? .success : .failure
    }

    private func start() throws(CommandFailure) {
        do {
            try bus.attach(event: loop.handle)
            let vtable = schedulerVtable { message, userdata, error in
                let daemon = Unmanaged<Daemon>.fromOpaque(userdata!).takeUnretainedValue()
                return daemon.handle(BusMessage(message!), error)
            }
            try bus.addObject(path: BusNames.objectPath, interface: BusNames.interface, vtable: vtable,
                              userdata: Unmanaged.passUnretained(self).toOpaque())
            try bus.requestName(BusNames.service)
        } catch {
            throw .failure(error.message)
        }
        do {
            for signal in [SIGTERM, SIGINT] {
                try loop.addSignal(signal) { [unowned self] in
                    logger.info("signal \(signal): finishing")
                    loop.exit(0)
                }
            }
            dueTimer = try loop.addRealtimeTimer { [unowned self] in settle() }
            if fakeClock == nil {
                let watch = try ClockChangeWatch()
                clockWatch = watch
                try loop.addReadable(fd: watch.fd) { [unowned self] in
                    if watch.consumeChange() { wallClockChanged() }
                }
            }
            if options.zoneName == nil {
                let watch = try ZoneChangeWatch(paths: zoneFilePaths())
                zoneWatch = watch
                try loop.addReadable(fd: watch.fd) { [unowned self] in
                    if watch.consumeChange() { deviceZoneFileChanged() }
                }
            }
            loop.enableWatchdogIfRequested()
        } catch {
            throw .failure(error.message)
        }
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
    func settle() {
        let now = clock.now
        if let due = engine.nextDue, due <= now {
            do {
                try engine.advance(to: now, mode: .wallClock)
            } catch {
                logger.error("delivering due notifications failed: \(error.message)")
            }
        }
        if fakeClock == nil { dueTimer?.arm(at: engine.nextDue) }
    }

    private func wallClockChanged() {
        logger.info("the wall clock changed; now \(clock.now.rfc3339)")
        do {
            try engine.advance(to: clock.now, mode: .wallClock)
        } catch {
            logger.error("re-evaluating after a clock change failed: \(error.message)")
        }
        settle()
    }

    private func deviceZoneFileChanged() {
        do {
            let zone = try ZoneDatabase().deviceZone(tz: environment("TZ"))
            logger.info("the device zone is now \(zone.name)")
            try engine.deviceZoneChanged(to: zone, now: clock.now)
        } catch let error as ZoneError {
            logger.warning("the device zone changed but cannot be read: \(error.message)")
        } catch {
            logger.error("re-evaluating after a zone change failed: \(error)")
        }
        settle()
    }

    /// Announces cancelled ids on the bus (`NotificationCancelled`, with the reason).
    func announceCancelled(_ ids: [String], reason: String) {
        for id in ids {
            logger.info("cancelled (\(reason))", id: id, run: runId(of: id))
            bus.emitSignal("NotificationCancelled", strings: [id, reason])
        }
    }
}

/// `schedd run`.
func runDaemonCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let daemon = try Daemon(options: DaemonOptions(args))
    return daemon.run()
}
