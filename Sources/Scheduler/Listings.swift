import SchedCalendar

/// How a pending schedule is shown in listings (`Engine.list`, `listPage`): a part of the engine over its
/// one state (docs/architecture.md "The engine's parts"). Reads only (the calendar cache may fill).
struct Listings {
    let state: EngineState

    /// `s` as `list` shows it: its trigger (`at …` with its offset, a floating wall time, or the normalized
    /// calendar expression; the stored text when it no longer parses) and its zone (UTC for a fixed
    /// instant, else its pinned zone or the device zone). O(1), one calendar parse when not cached.
    func pendingSchedule(_ s: StoredSchedule) -> PendingSchedule {
        let trigger: String
        switch s.kind {
        case .fixedAt:
            let instant = s.atInstant ?? s.next
            let offset = s.atOffset ?? 0
            trigger = "at " + CivilDateTime(instant: instant, offsetSeconds: offset)
                .iso8601(withOffset: offset, utcDesignator: true)
        case .floatingAt:
            trigger = "at " + (s.wall.map { $0.iso8601(withOffset: nil) } ?? "?")
        case .calendar:
            let normalized = (try? ZoneResolution(state: state).calendarSpec(s).normalized) ?? s.spec ?? ""
            trigger = "calendar " + normalized
        }
        let zone = s.kind == .fixedAt ? "UTC" : (s.zone ?? state.deviceZone.name)
        return PendingSchedule(app: s.app, id: s.id, next: s.next, title: s.title, trigger: trigger, zone: zone,
                               floating: s.floating, cancelOn: s.cancelOn, last: s.lastDue)
    }
}
