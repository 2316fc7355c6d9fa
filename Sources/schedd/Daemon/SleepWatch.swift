import ScheddBus
import ScheddService
import ScheddSystem
import SchedCalendar
import Scheduler

/// The sleep part (CONTRACT §11 "Resume"; docs/daemon-parts.md "Sleep and resume"): learns of sleep and
/// resume and tells the delivery at once.
///
/// - **logind.** When org.freedesktop.login1 is on the system bus, it holds a *delay* inhibitor
///   (`Inhibit("sleep", "schedd", …, "delay")` → a descriptor; logind waits for it up to its
///   `InhibitDelayMaxSec`, 5 s by default). On `PrepareForSleep(true)` it runs `beforeSleep` (commits every
///   write under way and arms the wake timer), records the sleep, and closes the descriptor (the lock is
///   released: logind goes on). On `PrepareForSleep(false)` it records the resume, delivers what fell due
///   at once (late, folded per app) and takes the lock again. logind restarting (NameOwnerChanged) is
///   survived: the lock is taken again from the new instance. The system bus going away is logged, not
///   fatal: the clocks remain.
/// - **The clocks.** Without logind (or as well as it), the growth of CLOCK_BOOTTIME − CLOCK_MONOTONIC
///   (time spent suspended) is checked whenever the loop wakes for the due timer or a wall-clock change —
///   a resume sets the wall clock (the kernel cancels `TFD_TIMER_CANCEL_ON_SET` timers on resume), so this
///   costs no polling. A gap of more than `minimumGapMicroseconds` is a sleep.
///
/// Owned by the loop thread.
final class SleepWatch {
    let state: SleepState
    private let logger: Logger
    private let clock: ServiceClock
    private let engine: () -> Engine
    /// Before the machine sleeps: commit writes, arm the wake timer (given in `init`).
    private let beforeSleep: () -> Void
    /// After a resume: deliver what fell due (the engine's `lateCause` is already `.resume`; given in `init`).
    private let afterResume: () -> Void

    private var bus: BusConnection?
    /// The inhibitor's descriptor while held.
    private var inhibitor: FileDescriptor?
    private var inhibitRequested = false
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC when last looked at (µs): its growth is time suspended.
    private var suspendedOffset = SystemTime.boottimeMicroseconds - SystemTime.monotonicMicroseconds
    /// Whether the wall clock stepped between two looks (`tellLateCause`).
    private var wallSteps = WallClockSteps(realtime: SystemTime.realtimeMicroseconds,
                                           boottime: SystemTime.boottimeMicroseconds)
    /// A suspended gap shorter than this is not a sleep (1 s; the clocks are read a few µs apart).
    static let minimumGapMicroseconds: Int64 = 1_000_000
    static let logindName = "org.freedesktop.login1"
    static let logindPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"

    /// `beforeSleep` runs on PrepareForSleep(true), before the inhibitor is released (the daemon's
    /// `Daemon.settleBeforeSleep`); `afterResume` on PrepareForSleep(false), once the resume is recorded
    /// (the daemon's `Delivery.wallClockChanged`). The clock-step watch and the delivery (before each
    /// delivery of what is due, on the real clock) call `tellLateCause`.
    init(state: SleepState, clock: ServiceClock, engine: @escaping () -> Engine, logger: Logger,
         beforeSleep: @escaping () -> Void, afterResume: @escaping () -> Void) {
        self.state = state; self.clock = clock; self.engine = engine; self.logger = logger
        self.beforeSleep = beforeSleep; self.afterResume = afterResume
    }

    /// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else the standard socket) and, when logind is
    /// there, takes the inhibitor. Nothing here is fatal: without a system bus the clocks tell resumes.
    func start(loop: EventLoop) {
        let bus: BusConnection
        do {
            bus = try BusConnection.open(.system, description: "schedd-sleep")
            try bus.attach(to: loop)
        } catch {
            state.source = "clocks"
            state.inhibitor = "none: no system bus (\(error.description))"
            logger.info("sleep and resume are told by the clocks: no system bus (\(error.description))")
            return
        }
        self.bus = bus
        do {
            try bus.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.logindName)'") { [weak self] m in
                guard (try? m.readStringIfAny()) != nil, (try? m.readString()) != nil, let new = try? m.readString() else {
                    return
                }
                self?.logindOwnerChanged(new)
            }
            try bus.addMatch("type='signal',sender='\(Self.logindName)',path='\(Self.logindPath)',"
                + "interface='\(Self.managerInterface)',member='PrepareForSleep'") { [weak self] m in
                guard let sleeping = try? m.readBool() else { return }
                self?.prepareForSleep(sleeping)
            }
            try bus.onDisconnect { [weak self] in self?.systemBusLost() }
        } catch {
            state.inhibitor = "none: cannot listen to logind (\(error.description))"
            logger.warning("cannot listen to logind for sleep and resume: \(error.description); the clocks tell resumes")
            return
        }
        let getNameOwner = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "GetNameOwner")
        do {
            try bus.callAsync(getNameOwner, timeoutMicroseconds: 5_000_000, { m throws(BusError) in
                try m.append(Self.logindName)
            }) { [weak self] result in
                guard let self else { return }
                if case .success(let reply) = result, let owner = try? reply.readString(), !owner.isEmpty {
                    logindOwnerChanged(owner)
                } else {
                    state.source = "clocks"
                    state.inhibitor = "none: logind not on the system bus"
                    logger.info("sleep and resume are told by the clocks: logind is not on the system bus")
                }
            }
        } catch {
            state.inhibitor = "none: cannot ask the system bus (\(error.description))"
        }
    }

    /// Closes the inhibitor and the connection (the daemon is stopping).
    func stop() {
        releaseInhibitor()
        bus?.close()
        bus = nil
    }

    private func logindOwnerChanged(_ owner: String) {
        // The old instance's lock went with it (its descriptor is dead): drop ours either way.
        releaseInhibitor()
        inhibitRequested = false
        if owner.isEmpty {
            state.source = "clocks"
            state.inhibitor = "none: logind left the system bus (waiting for it to come back)"
            logger.warning("logind left the system bus: the clocks tell resumes until it is back")
            return
        }
        state.source = "logind"
        takeInhibitor()
    }

    /// `Inhibit("sleep", "schedd", why, "delay")`, asynchronously; the reply's descriptor is the lock.
    private func takeInhibitor() {
        guard let bus, inhibitor == nil, !inhibitRequested else { return }
        let inhibit = BusMethod(destination: Self.logindName, path: Self.logindPath, interface: Self.managerInterface,
                                member: "Inhibit")
        do throws(BusError) {
            try bus.callAsync(inhibit, timeoutMicroseconds: 5_000_000, autoStart: false, { m throws(BusError) in
                try m.append("sleep")
                try m.append("schedd")
                try m.append("Commit notifications under way and arm the wake timer")
                try m.append("delay")
            }) { [weak self] result in
                guard let self else { return }
                inhibitRequested = false
                switch result {
                case .success(let reply):
                    do throws(BusError) {
                        let fd = try reply.readFileDescriptor()
                        releaseInhibitor()
                        inhibitor = FileDescriptor(rawValue: fd)
                        state.inhibitor = "held"
                        logger.info("holding a delay inhibitor on sleep (logind)")
                    } catch {
                        state.inhibitor = "none: logind's Inhibit reply had no descriptor (\(error.description))"
                    }
                case .failure(let error):
                    state.inhibitor = "none: logind refused Inhibit (\(error.description))"
                    logger.warning("logind refused a delay inhibitor: \(error.description); sleep may interrupt a delivery")
                }
            }
            inhibitRequested = true
        } catch {
            state.inhibitor = "none: cannot call logind (\(error.description))"
        }
    }

    private func releaseInhibitor() {
        inhibitor?.close()
        inhibitor = nil
    }

    /// logind's PrepareForSleep: `true` before the machine sleeps, `false` after it resumed.
    private func prepareForSleep(_ sleeping: Bool) {
        if sleeping {
            beforeSleep()
            state.lastSleep = clock.now
            releaseInhibitor()
            state.inhibitor = "released (the machine is going to sleep)"
            logger.info("the machine is going to sleep: deliveries committed, inhibitor released")
        } else {
            state.lastResume = clock.now
            resynchronizeClocks()
            logger.info("the machine resumed (logind): delivering what fell due")
            engine().lateCause = .resume
            afterResume()
            takeInhibitor()
        }
    }

    private func systemBusLost() {
        inhibitor?.close()
        inhibitor = nil
        state.source = "clocks"
        state.inhibitor = "none: the system bus went away"
        logger.warning("lost the system bus: sleep and resume are told by the clocks from now on")
    }

    /// On every look at the clocks (`tellLateCause`): a grown suspended gap is a
    /// resume (recorded, and the late notifications' cause is `.resume`). Returns whether it was one.
    private func checkClocks(boottime: Int64) -> Bool {
        let offset = boottime - SystemTime.monotonicMicroseconds
        let gap = offset - suspendedOffset
        suspendedOffset = offset
        guard gap >= Self.minimumGapMicroseconds else { return false }
        engine().lateCause = .resume
        if state.source != "logind" || inhibitor == nil {
            let now = clock.now
            state.lastResume = now
            state.lastSleep = now.adding(microseconds: -gap)
            logger.info("the machine resumed after \(gap / 1_000_000) s asleep (CLOCK_BOOTTIME): delivering what fell due")
        }
        return true
    }

    /// Tells the engine (`Engine.lateCause`) what the clocks say before a delivery: a resume (`checkClocks`),
    /// else a wall-clock step — the kernel's word (`clockChanged`, the clock-step watch) or the clocks'
    /// (`WallClockSteps`: a due-timer wake or a settle may come before the step's own watch). Otherwise it
    /// leaves the cause as it is: `.delayed` once the last catch-up is done (a storage back-off's retry, a
    /// stopped daemon), or what the start or logind's resume set and no delivery has consumed yet. Both
    /// looks run each time, so each keeps its reference current. Three clock reads.
    func tellLateCause(clockChanged: Bool) {
        let boottime = SystemTime.boottimeMicroseconds
        let stepped = wallSteps.stepped(realtime: SystemTime.realtimeMicroseconds, boottime: boottime)
        if checkClocks(boottime: boottime) { return }
        if clockChanged || stepped { engine().lateCause = .clockJump }
    }

    private func resynchronizeClocks() {
        suspendedOffset = SystemTime.boottimeMicroseconds - SystemTime.monotonicMicroseconds
    }
}
