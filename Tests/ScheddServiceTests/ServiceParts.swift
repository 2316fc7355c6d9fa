import SchedCalendar
@testable import Scheduler
import ScheddService
import SystemZones

/// A loop trigger that only counts; the test runs the action when it wants.
final class ManualTrigger: LoopTrigger {
    var pulls = 0
    func trigger() throws(LoopTriggerError) { pulls += 1 }
}

/// A hand-driven loop: the work at the priorities in `looped` waits for the test (each source a
/// `ManualTrigger` that only counts; the test runs the part's action itself); every other runs at once.
final class HandLoop: LoopScheduler {
    let looped: Set<LoopPriority>
    private(set) var triggers: [LoopPriority: ManualTrigger] = [:]
    init(_ looped: Set<LoopPriority> = []) { self.looped = looped }
    func source(_ priority: LoopPriority, _ action: @escaping () -> Void) -> LoopTrigger? {
        guard looped.contains(priority) else { return nil }
        let trigger = ManualTrigger()
        triggers[priority] = trigger
        return trigger
    }
}

/// The log and the cancel announcer of `ServiceParts`: records what they were told.
final class Recorder: ServiceLog, CancelAnnouncer {
    var lines: [String] = []
    var announced: [(ids: [String], reason: String, unlisted: Int)] = []
    func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) { lines.append(message) }
    func announceCancelled(_ ids: [String], reason: String, app: String) { announced.append((ids, reason, 0)) }
    func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String) {
        announced.append((ids, reason, unlisted))
    }
}

/// The daemon's bus-free parts wired as the daemon wires them (clock ↔ delivery through a `Late`, group
/// commit settling delivery after each commit, the delivery's settle kicking the cancellation slices and
/// re-arming the wake timer), over a real SQLite store at `databasePath` and a recording notifier, on a
/// fake clock at `start` (or the real clock when `fake` is false). The work at the priorities in `looped`
/// waits for the test (`loop.triggers`); every other runs at once.
struct ServiceParts {
    let engine: Engine, clock: ServiceClock, storage: StorageMonitor, delivery: Delivery
    let group: GroupCommit, service: Service, recorder: Recorder
    /// The cancellation jobs' slices: all at once unless `.cancelSlices` is looped.
    let slicing: CancelSlicing
    /// The hand-driven loop the parts were given.
    let loop: HandLoop
    /// What is known of sleep and the wake timer (`Status`), written by `wakeArming`.
    let sleep: SleepState
    /// The wake timer's arming (nil unless `wake` was given).
    let wakeArming: WakeArming?
    /// What the storage monitor reported so far (report, whether it is an error).
    var reports: () -> [(StorageHealth.Report, Bool)]

    private final class ReportBox { var reports: [(StorageHealth.Report, Bool)] = [] }

    /// `syncDevice`: the group commit syncs off the loop through it (`SyncPipeline`), as the daemon's
    /// `LogSyncThread` does; nil: every COMMIT syncs itself. `batchDecoder`: decodes large PushBatch calls
    /// (nil: at once). `wake`: the engine's wake capability and the wake timer (nil: none), armed by a
    /// `WakeArming` after every settle, as the daemon does.
    init(databasePath: String, start: Instant, fake: Bool = true, syncDevice: SyncPipeline.Device? = nil,
         looped: Set<LoopPriority> = [], batchDecoder: PushBatchDecoder? = nil,
         wake: (capability: WakeCapability, source: (any WakeTimerSource)?)? = nil,
         delivering: @escaping () -> Void = {}) throws {
        let loop = HandLoop(looped)
        let store = try SQLiteScheduleStore(path: databasePath)
        let engine = try Engine(store: store, notifier: RecordingNotifier(),
                                deviceZone: .utc, zones: ZoneDatabase.shared, now: start)
        let recorder = Recorder()
        // The clock's methods deliver, and the delivery reads the clock: the delivery is bound once made.
        let lateDelivery = Late<Delivery>()
        let clock = ServiceClock(fakeStart: fake ? start : nil, engine: { engine }, delivery: { lateDelivery.value },
                                 zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: recorder)
        let box = ReportBox()
        let storage = StorageMonitor(now: { clock.now }, serving: { "Serving" }, report: { box.reports.append(($0, $1)) })
        let durability = syncDevice.map { device in
            SyncPipeline(device: device, committing: { transactions in store.committingWithoutSync(transactions).deferred })
        }
        let slicing = CancelSlicing(engine: { engine }, clock: clock, storage: storage, log: recorder, durability: durability,
                                    loop: loop)
        let sleep = SleepState()
        if let wake { engine.wakeCapability = wake.capability }
        let arming = wake.map { WakeArming(source: $0.source, engine: { engine }, state: sleep, log: recorder) }
        let delivery = Delivery(engine: { engine }, clock: clock, storage: storage, log: recorder, loop: loop,
                                events: Delivery.Events(settled: { slicing.kick(); arming?.rearm() }, delivering: delivering))
        lateDelivery.bind(delivery)
        let group = GroupCommit(engine: { engine }, clock: clock, storage: storage, announcer: recorder, log: recorder,
                                durability: durability, loop: loop, afterCommit: { delivery.settle() })
        let service = Service(engine: { engine }, clock: clock, delivery: delivery, groupCommit: group, storage: storage,
                              announcer: recorder, sleep: sleep, cancelSlicing: slicing, batchDecoder: batchDecoder)
        self.slicing = slicing
        self.loop = loop
        self.sleep = sleep; self.wakeArming = arming
        self.engine = engine; self.clock = clock; self.storage = storage; self.delivery = delivery
        self.group = group; self.service = service; self.recorder = recorder
        reports = { box.reports }
    }

    /// Serves `call` for `caller` and returns its answers so far (none while it waits for the commit).
    func serve(_ call: SchedulerCall, caller: Caller) -> () -> [Result<CallAnswer, ServiceFailure>] {
        final class Answers { var list: [Result<CallAnswer, ServiceFailure>] = [] }
        let answers = Answers()
        service.serve(call, caller: caller) { answers.list.append($0) }
        return { answers.list }
    }
}
