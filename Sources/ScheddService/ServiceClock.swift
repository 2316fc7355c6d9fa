import SchedCalendar
import Scheduler

/// The clock part (CONTRACT §7): owns which clock the daemon runs on — `CLOCK_REALTIME`, or the fake
/// clock of `--fake-clock` — and the fake-clock methods ClockShow, ClockSet, ClockAdvance, ClockNext,
/// ClockZone: each moves the fake clock and asks the delivery part to deliver what became due.
///
/// The delivery reads this clock, and this clock's methods deliver: the one cycle between the two parts,
/// so the clock is made first and reaches the delivery through an accessor (`delivery: () -> Delivery`,
/// a `Late<Delivery>` the wiring binds once the delivery is made), as every part reaches the engine.
public final class ServiceClock {
    /// The fake clock (`--fake-clock`), or nil when running on `CLOCK_REALTIME`.
    public let fake: FakeClock?
    private let clock: any Clock
    private let engine: () -> Engine
    private let zones: (String) throws(ZoneError) -> TimeZoneRules
    private let log: ServiceLog
    /// The delivery part, which delivers after a clock move (read only by the Clock* methods, never in `init`).
    private let delivery: () -> Delivery

    /// A fake clock starting at `fakeStart`, or the system clock when nil. `zones` finds a zone by
    /// name (for ClockZone). `delivery`: the delivery part, made after the clock (`Late`).
    public init(fakeStart: Instant?, engine: @escaping () -> Engine, delivery: @escaping () -> Delivery,
                zones: @escaping (String) throws(ZoneError) -> TimeZoneRules, log: ServiceLog) {
        if let fakeStart {
            let fake = FakeClock(fakeStart)
            self.fake = fake
            clock = fake
        } else {
            fake = nil
            clock = SystemClock()
        }
        self.engine = engine; self.delivery = delivery; self.zones = zones; self.log = log
    }

    public var now: Instant { clock.now }
    /// The clock as the engine takes it.
    public var asClock: any Clock { clock }

    /// ClockShow's answer: `{"now","zone","fake"}`.
    public func json() -> String {
        JSONValue.object([
            JSONMember("now", .string(now.rfc3339)), JSONMember("zone", .string(engine().deviceZone.name)),
            JSONMember("fake", .bool(fake != nil)),
        ]).serialized()
    }

    /// Throws the error `clock METHOD` gives on the real clock (`.notFakeClock`); nothing on a fake one.
    func checkFake(_ method: String) throws(ServiceFailure) { _ = try requireFake(method) }

    private func requireFake(_ method: String) throws(ServiceFailure) -> FakeClock {
        guard let fake else {
            throw ServiceFailure(.notFakeClock, "clock \(method): the daemon runs on the real clock (start it with --fake-clock)")
        }
        return fake
    }

    /// A wall-clock step to `text` (like `date -s`): what it jumps over is late; back fires nothing.
    public func set(_ text: String) throws(ServiceFailure) {
        let fake = try requireFake("set")
        let zone = engine().deviceZone
        let target = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ClockArguments.setTarget(instant(fromTimeText: text, in: zone), text: text)
        }
        fake.set(target)
        log.info("fake clock set to \(target.rfc3339)")
        engine().lateCause = .clockJump
        try deliver(mode: .wallClock)
    }

    /// Time passing: everything due in the span fires on time, in due order.
    ///
    /// The span is checked, never trusted: the clock must stay inside `Instant.supportedRange`, so
    /// `ClockAdvance(UInt64.max)` is an error naming that range (the fake clock is left where it was).
    public func advance(microseconds: UInt64) throws(ServiceFailure) {
        let fake = try requireFake("advance")
        let target = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ClockArguments.advanceTarget(from: fake.now, microseconds: microseconds)
        }
        fake.set(target)
        try deliver(mode: .timePassing)
    }

    /// `clock sleep SPAN`: the machine sleeps for the span and resumes (CONTRACT §11): the wall clock moves
    /// as after a real resume — what fell due meanwhile is late, handed over at once, folded per app —
    /// and `state` records the sleep and the resume, as logind's PrepareForSleep would.
    public func sleep(microseconds: UInt64, state: SleepState) throws(ServiceFailure) {
        let fake = try requireFake("sleep")
        let start = fake.now
        let target = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ClockArguments.advanceTarget(from: start, microseconds: microseconds)
        }
        state.lastSleep = start
        fake.set(target)
        state.lastResume = target
        log.info("fake clock slept \(Double(microseconds) / 1e6) s: resumed at \(target.rfc3339)")
        engine().lateCause = .resume
        try deliver(mode: .wallClock)
    }

    /// `clock next`: time passing up to the next due instant (nothing when nothing is pending, or when
    /// it is already due), delivering what is due then.
    public func next() throws(ServiceFailure) {
        let fake = try requireFake("next")
        guard let due = engine().nextDue else { return }
        // A floating wall time late in 9999 resolved in a zone west of UTC can fall past the range.
        guard due.isSupported else {
            throw ServiceFailure(.invalidArgument, "clock next: the next due instant \(due.rfc3339) is outside the "
                                 + "supported range \(Instant.supportedRangeDescription)")
        }
        if due > fake.now { fake.set(due) }
        try deliver(mode: .timePassing)
    }

    /// A device-zone change to `name`, as a change of /etc/localtime would be.
    public func zone(_ name: String) throws(ServiceFailure) {
        _ = try requireFake("zone")
        let zone: TimeZoneRules
        do {
            zone = try zones(name)
        } catch {
            throw ServiceFailure(.invalidArgument, "clock zone: \(error.message)")
        }
        log.info("device zone set to \(zone.name)")
        do {
            _ = try engine().deviceZoneChanged(to: zone, now: now)
        } catch {
            throw ServiceFailure(error)
        }
        delivery().settle()
    }

    /// Delivers what the clock move made due (in slices: the caller answers after the delivery).
    private func deliver(mode: AdvanceMode) throws(ServiceFailure) {
        do throws(EngineError) {
            try delivery().startSlicedDelivery(mode: mode)
        } catch {
            throw ServiceFailure(error)
        }
        delivery().settle()
    }
}
