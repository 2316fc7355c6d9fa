import SystemZones
import SchedCalendar
import Scheduler
import ScheddService

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
        let target = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ClockArguments.setTarget(instant(fromTimeText: text, in: engine.deviceZone), text: text)
        }
        fake.set(target)
        logger.info("fake clock set to \(target.rfc3339)")
        try startDelivery(mode: .wallClock)
    }

    /// Time passing: everything due in the span fires on time, in due order; answered after all of it
    /// was recorded and handed to the notifier (an asynchronous notifier's outcome is not waited for).
    ///
    /// The span is checked, never trusted: the clock must stay inside `Instant.supportedRange`, so
    /// `ClockAdvance(UInt64.max)` or many advances of 2^62 µs are errors naming that range (the fake
    /// clock is left where it was), not an overflow.
    func clockAdvance(microseconds: UInt64) throws(ServiceFailure) {
        let fake = try requireFakeClock("advance")
        let target = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ClockArguments.advanceTarget(from: fake.now, microseconds: microseconds)
        }
        fake.set(target)
        try startDelivery(mode: .timePassing)
    }

    /// Delivers what the clock move made due (in slices: the caller answers after `replyAfterDelivery`).
    private func startDelivery(mode: AdvanceMode) throws(ServiceFailure) {
        do throws(EngineError) {
            try startSlicedDelivery(mode: mode)
        } catch {
            throw ServiceFailure(error)
        }
        settle()
    }

    /// `clock next`: time passing up to the next due instant (nothing when nothing is pending, or
    /// when it is already due), delivering what is due then, as `clockAdvance` does.
    func clockNext() throws(ServiceFailure) {
        let fake = try requireFakeClock("next")
        guard let due = engine.nextDue else { return }
        // A floating wall time late in 9999 resolved in a zone west of UTC can fall past the range.
        guard due.isSupported else {
            throw ServiceFailure(.invalidArgument, "clock next: the next due instant \(due.rfc3339) is outside the "
                                 + "supported range \(Instant.supportedRangeDescription)")
        }
        if due > fake.now { fake.set(due) }
        try startDelivery(mode: .timePassing)
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
        _ = try engineCall { now throws(EngineError) in try engine.deviceZoneChanged(to: zone, now: now) }
    }
}
