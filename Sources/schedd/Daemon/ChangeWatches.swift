import SchedCalendar
import ScheddBus
import Scheduler
import ScheddService
import SystemZones

/// The change-watch part: owns the event sources that tell the daemon the world changed — wall-clock
/// steps (timerfd cancel-on-set), the device zone (/etc/localtime or the zone file TZ names) and
/// tzdata updates of the zone files in use (SystemZones' `ZoneChangeWatch` and `TzdataWatch`) — and
/// what each change asks of the engine and the delivery.
final class ChangeWatches {
    private let engine: () -> Engine
    private let clock: ServiceClock
    private let delivery: Delivery
    private let storage: StorageMonitor
    private let logger: Logger
    private var clockWatch: ClockChangeWatch?
    private var zoneWatch: ZoneChangeWatch?
    private var tzdataWatch: TzdataWatch?
    /// `Engine.zonesInUseGeneration` at the last successful tzdata sync (nil: never synced).
    private var syncedGeneration: Int?
    /// Before a wall-clock step is delivered: the sleep part tells a resume from a jump (`SleepWatch.tellLateCause`).
    private let beforeWallClockChange: () -> Void

    /// `beforeWallClockChange`: runs on each wall-clock step, before the delivery hears of it (the daemon's
    /// resume-or-jump check, `SleepWatch.tellLateCause(clockChanged: true)`).
    init(engine: @escaping () -> Engine, clock: ServiceClock, delivery: Delivery, storage: StorageMonitor, logger: Logger,
         beforeWallClockChange: @escaping () -> Void) {
        self.engine = engine; self.clock = clock; self.delivery = delivery; self.storage = storage; self.logger = logger
        self.beforeWallClockChange = beforeWallClockChange
    }

    /// Adds the watches to `loop`: clock steps unless on a fake clock, the device zone unless `--zone`
    /// fixed it, tzdata always. A watch that fails later is fatal (`fatal`): its changes would go unnoticed.
    func start(loop: EventLoop, watchDeviceZone: Bool, fatal: @escaping (String) -> Void) throws(BusError) {
        if clock.fake == nil {
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
        if watchDeviceZone {
            let watch: ZoneChangeWatch
            do { watch = try ZoneChangeWatch(paths: ZoneDatabase.shared.deviceZoneFilePaths(tz: environment("TZ"))) } catch {
                throw BusError(error)
            }
            zoneWatch = watch
            try loop.addReadable(fd: watch.fd) { [unowned self] in
                do {
                    if try watch.consumeChange() { deviceZoneFileChanged() }
                } catch {
                    fatal("device-zone detection failed (\(error)): zone changes would go unnoticed")
                }
            }
        }
        let tzdata: TzdataWatch
        do { tzdata = try TzdataWatch(database: ZoneDatabase.shared) } catch { throw BusError(error) }
        tzdataWatch = tzdata
        syncTzdata()
        try loop.addReadable(fd: tzdata.fd) { [unowned self] in
            do {
                if try tzdata.consumeChange() { zoneFilesChanged() }
            } catch {
                fatal("tzdata-update detection failed (\(error)): zone file updates would go unnoticed")
            }
        }
    }

    /// Watches zones that came into use since the last call (after each maintenance step).
    func syncTzdata() {
        guard let tzdataWatch else { return }
        let generation = engine().zonesInUseGeneration
        guard generation != syncedGeneration else { return }  // no zone came into use since the last sync
        do {
            try tzdataWatch.sync(engine().zoneNamesInUse)
            syncedGeneration = generation
        } catch {
            logger.warning("cannot watch a zone file in use for tzdata updates: \(error)")
        }
    }

    private func wallClockChanged() {
        logger.info("the wall clock changed; now \(clock.now.rfc3339)")
        beforeWallClockChange()
        delivery.wallClockChanged()
    }

    private func deviceZoneFileChanged() {
        do {
            let zone = try ZoneDatabase().deviceZone(tz: environment("TZ"))
            if zone.name == engine().deviceZone.name {
                zoneFilesChanged()  // the same zone, its file replaced: a tzdata update
                return
            }
            logger.info("the device zone is now \(zone.name)")
            _ = try engine().deviceZoneChanged(to: zone, now: clock.now)
        } catch let error as ZoneError {
            logger.warning("the device zone changed but cannot be read: \(error.message)")
        } catch {
            logger.error("re-evaluating after a zone change failed: \(error)")
        }
        delivery.settle()
    }

    /// The files of zones in use changed (a tzdata update): re-resolves what the new rules move, logs it,
    /// and watches zones that came into use since.
    private func zoneFilesChanged() {
        do throws(EngineError) {
            for change in try engine().zoneFilesChanged(now: clock.now) {
                logger.info("the rules of \(change.zone) changed: \(change.moved.count) schedule(s) moved")
                for moved in change.moved.prefix(100) {
                    logger.info("re-resolved after a tzdata update: \(moved.from.rfc3339) -> \(moved.to.rfc3339)",
                                id: moved.id, run: Scheduler.runId(of: moved.id))
                }
            }
            storage.succeeded()
        } catch {
            storage.failed("re-resolving after a tzdata update", ServiceFailure(error), backOff: false)
        }
        delivery.settle()
    }
}
