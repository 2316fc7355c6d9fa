import SchedCalendar

// Turning triggers into due instants: zones, gaps and folds, calendar elapses, `until`, zone changes.
/// Turning a schedule's trigger into due instants — zones loaded once, calendar expressions parsed once,
/// gaps and folds, `until` — and a push's `LocalSchedule` into a stored schedule: a part of the engine over
/// its one state (docs/architecture.md "The engine's parts"). Reads and fills only the state's zone and
/// calendar caches; never touches the store or the wheel.
struct ZoneResolution {
    let state: EngineState

    /// The rules for `name`, loaded once per engine (cached in `EngineState.zoneCache`); an unknown name is
    /// `.invalidArgument` naming it. O(1) once cached.
    func zone(named name: String) throws(EngineError) -> TimeZoneRules {
        if let cached = state.zoneCache[name] { return cached }
        do {
            let rules = try state.zones.zone(named: name)
            state.zoneCache[name] = rules
            return rules
        } catch {
            throw EngineError(.invalidArgument, "unknown time zone '\(name)': \(error.message)")
        }
    }

    /// The zone a schedule is evaluated in: its pinned zone, else the device zone.
    func evaluationZone(_ s: StoredSchedule) throws(EngineError) -> TimeZoneRules {
        guard let name = s.zone else { return state.deviceZone }
        return try zone(named: name)
    }

    /// The parsed expression of a calendar schedule, parsed once per expression text (cached until the
    /// zone files change: a pinned zone's rules are part of the parsed value). O(1) once cached.
    func calendarSpec(_ s: StoredSchedule) throws(EngineError) -> CalendarSpec {
        let text = s.spec ?? ""
        if let cached = state.specCache[text] { return cached }
        do {
            let spec = try CalendarSpec(parsing: text, zones: state.zones)
            cache(spec, for: text)
            return spec
        } catch {
            throw EngineError(.invalidArgument, member: "bk.local.calendar", rule: error.message)
        }
    }

    /// Caches `spec`, the decoder's parse of `text`, unless `text` is cached already or the rules of its
    /// pinned zone are no longer those the zone database gives (the zone files changed since the decode:
    /// `calendarSpec` then parses it again with the new rules). O(1).
    func adopt(_ spec: CalendarSpec, for text: String) {
        guard spec.source == text, state.specCache[text] == nil else { return }
        if let rules = spec.pinnedZoneRules, let name = spec.timeZoneName {
            guard let current = try? state.zones.zone(named: name), current === rules else { return }
        }
        cache(spec, for: text)
    }

    /// `specCache[text] = spec`, emptying the cache first when it holds 10,000 expressions.
    private func cache(_ spec: CalendarSpec, for text: String) {
        if state.specCache.count >= 10_000 { state.specCache.removeAll(keepingCapacity: true) }
        state.specCache[text] = spec
    }

    /// The instant of a one-shot. A wall time in a gap takes the offset before the gap (02:30 on
    /// 2026-03-08 in New York → 07:30Z, i.e. 03:30 EDT); in a fold, the first occurrence
    /// (01:30 on 2026-11-01 in New York → 05:30Z, EDT) — `TimeZoneRules.resolve`, RFC 5545 §3.3.5.
    func oneShotDue(_ s: StoredSchedule) throws(EngineError) -> Instant {
        switch s.kind {
        case .fixedAt: return s.atInstant ?? s.next
        case .floatingAt:
            guard let wall = s.wall else { return s.next }
            return try evaluationZone(s).resolve(wall).instant
        case .calendar: return s.next
        }
    }

    /// `until` as an instant (nil when absent); a floating `until` without its own zone follows the schedule's.
    func untilInstant(_ s: StoredSchedule) throws(EngineError) -> Instant? {
        if let fixed = s.untilInstant { return fixed }
        guard let wall = s.untilWall else { return nil }
        let rules: TimeZoneRules
        if let name = s.untilZone { rules = try zone(named: name) } else { rules = try evaluationZone(s) }
        return rules.resolve(wall).instant
    }

    /// The first calendar elapse strictly after `instant` that is not after `until`; nil when none.
    /// Invariant: never an instant after the schedule's `until`. O(the calendar's search) per call.
    /// `first`: the first elapse of a new schedule, found as a fresh `systemd-analyze calendar
    /// --base-time` finds it (glibc's mktime state starts at 0); later elapses continue the series.
    func nextElapse(_ s: StoredSchedule, after instant: Instant, first: Bool = false) throws(EngineError) -> Instant? {
        let spec = try calendarSpec(s)
        var mktime = MktimeState()
        let found = first ? spec.nextElapse(after: instant, in: try evaluationZone(s), state: &mktime)
            : spec.nextElapse(after: instant, in: try evaluationZone(s))
        guard let next = found else { return nil }
        if let until = try untilInstant(s), next > until { return nil }
        return next
    }

    /// A new stored schedule from a push (key 0, `next` = the first due; nil `next` means no occurrence);
    /// `digest` is `local.digest`, computed once by the caller. Invariants: every zone it names loads (else
    /// `.invalidArgument`), a floating wall time resolving outside the supported range is refused naming
    /// `bk.local.at`. O(size of the push) plus one calendar search.
    func makeSchedule(_ local: LocalSchedule, digest: String, app: String = Engine.defaultApp, messageId: String?,
                      extras: NotificationExtras = NotificationExtras(), now: Instant)
        throws(EngineError) -> (StoredSchedule, Instant?) {
        var s = StoredSchedule(
            key: 0, app: app, id: local.id, kind: .fixedAt, spec: nil, atInstant: nil, atOffset: nil, wall: nil, zone: nil,
            untilInstant: nil, untilWall: nil, untilZone: nil, next: now, lastDue: nil, title: local.title,
            body: local.body, dataJSON: local.dataJSON, cancelOn: local.cancelOn, graceSeconds: local.graceSeconds,
            urgency: local.urgency, icon: local.icon, category: local.category, actions: local.actions,
            messageId: messageId, fingerprint: digest, storedAt: now)
        s.extras = extras
        switch local.trigger {
        case .at(.fixed(let instant, let offset)):
            s.kind = .fixedAt
            s.atInstant = instant
            s.atOffset = offset
        case .at(.floating(let wall, let zoneName)):
            s.kind = .floatingAt
            s.wall = wall
            s.zone = zoneName
            if let zoneName { _ = try zone(named: zoneName) }
        case .calendar(let text):
            s.kind = .calendar
            s.spec = text
            if let parsed = local.parsedCalendar.spec { adopt(parsed, for: text) }
            s.zone = try calendarSpec(s).timeZoneName
            if let zoneName = s.zone { _ = try zone(named: zoneName) }
            switch local.until {
            case .fixed(let instant, _)?: s.untilInstant = instant
            case .floating(let wall, let zoneName)?:
                s.untilWall = wall
                s.untilZone = zoneName
            case nil: break
            }
        }
        let next: Instant?
        if s.kind == .calendar {
            next = try nextElapse(s, after: now, first: true)
        } else {
            next = try oneShotDue(s)
            // A wall time of the years 1–9999 may resolve outside them (9999-12-31T23:59 west of UTC):
            // refused naming the range (CONTRACT §9), as a fixed instant out of range is by the decoder.
            if s.kind == .floatingAt, let next, !next.isSupported, let wall = s.wall {
                throw EngineError(.invalidArgument, member: "bk.local.at",
                                  rule: "\(wall.iso8601(withOffset: nil)) in \(try evaluationZone(s).name) is "
                                  + "\(next.rfc3339), outside the supported range \(Instant.supportedRangeDescription)")
            }
        }
        if let next { s.next = next }
        return (s, next)
    }
}

extension Engine {
    var resolution: ZoneResolution { ZoneResolution(state: state) }

    /// The device zone changed: first everything due by `now` is delivered in the *old* zone (as by
    /// `advance(to: now, mode: .wallClock)`: late or missed), then floating schedules are re-resolved to
    /// their wall time in `zone`.
    ///
    /// A floating one-shot keeps its wall time (19:00 stays 19:00 in the new zone; if that is already past
    /// it is late and the next `advance` applies the grace rule). A floating calendar takes its first
    /// elapse in the new zone after its last occurrence and after `now`, so nothing that
    /// already fired fires again; one whose `until` now leaves it no occurrence ends with history
    /// `expired` (reason `until`). Pinned schedules (`timeZone`, a calendar zone suffix) do not move.
    /// Returns what the catch-up delivered.
    @discardableResult
    public func deviceZoneChanged(to zone: TimeZoneRules, now: Instant) throws(EngineError) -> [DueNotification] {
        let delivered = try advance(to: now, mode: .wallClock)
        try DeviceZoneChange(state: state).apply(zone, now: now)
        return delivered
    }
}

/// The device zone's change after the catch-up (`Engine.deviceZoneChanged` delivers what was due in the old
/// zone first): a part of the engine over its one state (docs/architecture.md "The engine's parts").
struct DeviceZoneChange {
    let state: EngineState
    private var resolution: ZoneResolution { ZoneResolution(state: state) }

    /// Makes `zone` the device zone and re-resolves every floating schedule in it, in ONE transaction that
    /// also records the zone (`device_zone`); on failure the previous zone stays and nothing moved.
    /// Invariant: a floating one-shot keeps its wall time; a floating calendar's next elapse is after its last
    /// occurrence and after `now`; one left without occurrence ends `expired`. O(floating · log n).
    func apply(_ zone: TimeZoneRules, now: Instant) throws(EngineError) {
        let previous = state.deviceZone
        state.deviceZone = zone
        state.lastNow = now
        state.zoneCache[zone.name] = zone
        do {
            _ = try state.transaction { (changes: inout ChangeSet) throws(StoreError) in
                for var s in try state.store.schedules.floating() {
                    let next: Instant?
                    do throws(EngineError) {
                        if s.kind == .calendar {
                            let base = max(s.lastDue ?? s.storedAt, now)
                            next = try resolution.nextElapse(s, after: base)
                        } else {
                            next = try resolution.oneShotDue(s)
                        }
                    } catch {
                        continue  // cannot be evaluated any more: keeps its due; `advance` ends it
                    }
                    guard let next else {
                        // A floating calendar whose `until` now lies before its next elapse: it is over.
                        changes.disarm(key: s.key)
                        try Endings(state: state).expire(s, now: now)
                        continue
                    }
                    s.next = next
                    try state.store.schedules.updateNext(key: s.key, next: next, lastDue: s.lastDue)
                    changes.arm(key: s.key, due: next)
                }
                try state.store.meta.set("device_zone", zone.name)
            }
        } catch {
            state.deviceZone = previous
            throw error
        }
    }
}
