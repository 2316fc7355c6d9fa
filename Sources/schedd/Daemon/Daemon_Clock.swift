import SchedCalendar
import Scheduler

/// The fake-clock methods (CONTRACT §7): ClockShow, ClockSet, ClockAdvance, ClockNext, ClockZone.
extension Daemon {
    /// `{"now","zone","fake"}`.
    func clockJSON() -> String {
        JSONValue.object([
            JSONMember("now", .string(clock.now.rfc3339)), JSONMember("zone", .string(engine.deviceZone.name)),
            JSONMember("fake", .bool(fakeClock != nil)),
        ]).serialized()
    }

    private func requireFakeClock(_ method: String) throws(ServiceFailure) -> FakeClock {
        guard let fakeClock else {
            throw ServiceFailure(.notFakeClock,
                                 "clock \(method): the daemon runs on the real clock (start it with --fake-clock)")
        }
        return fakeClock
    }

    /// A wall-clock step to `text` (like `date -s`): what it jumps over is late; back fires nothing.
    func clockSet(_ text: String) throws(ServiceFailure) {
        let fake = try requireFakeClock("set")
        guard let target = instant(fromTimeText: text, in: engine.deviceZone) else {
            throw ServiceFailure(.invalidArgument,
                                 "clock set: expected YYYY-MM-DDTHH:MM[:SS] with optional Z or ±HH:MM, not '\(text)'")
        }
        fake.set(target)
        logger.info("fake clock set to \(target.rfc3339)")
        _ = try engineCall { now throws(EngineError) in try engine.advance(to: now, mode: .wallClock) }
    }

    /// Time passing: everything due in the span fires on time, in due order; returns after all of it
    /// was delivered and recorded.
    func clockAdvance(microseconds: UInt64) throws(ServiceFailure) {
        let fake = try requireFakeClock("advance")
        guard microseconds <= UInt64(Int64.max / 2) else {
            throw ServiceFailure(.invalidArgument, "clock advance: span too large")
        }
        let target = fake.now.adding(microseconds: Int64(microseconds))
        fake.set(target)
        _ = try engineCall { now throws(EngineError) in try engine.advance(to: now, mode: .timePassing) }
    }

    /// `clock next`: time passing up to the next due instant (nothing when nothing is pending, or
    /// when it is already due), delivering what is due then, as `clockAdvance` does.
    func clockNext() throws(ServiceFailure) {
        let fake = try requireFakeClock("next")
        guard let due = engine.nextDue else { return }
        if due > fake.now { fake.set(due) }
        _ = try engineCall { now throws(EngineError) in try engine.advance(to: now, mode: .timePassing) }
    }

    /// A device-zone change to `name`, as a change of /etc/localtime would be.
    func clockZone(_ name: String) throws(ServiceFailure) {
        _ = try requireFakeClock("zone")
        let zone: TimeZoneRules
        do {
            zone = try ZoneDatabase.shared.zone(named: name)
        } catch {
            throw ServiceFailure(.invalidArgument, "clock zone: \(error.message)")
        }
        logger.info("device zone set to \(zone.name)")
        try engineCall { now throws(EngineError) in try engine.deviceZoneChanged(to: zone, now: now) }
    }
}
