import SchedCalendar
import ScheddCrypto

extension TimeZoneRules {
    /// The SHA-256 (hex) of the rules' `canonicalBytes`: what the store records per zone in use to notice
    /// a tzdata update. O(transitions).
    public var contentDigest: String { SHA256.hex(canonicalBytes) }
}

/// What a tzdata update moved: one zone whose rules changed, and the schedules it re-resolved.
public struct ZoneRulesChange: Sendable, Hashable {
    public struct Moved: Sendable, Hashable {
        public var id: String
        public var from: Instant
        public var to: Instant
    }
    public var zone: String
    public var moved: [Moved]
}

// tzdata updates (CONTRACT §2): the content digest of every zone in use is recorded in the store; when a
// zone's rules change (a package update replaces its file), every pending schedule in it is resolved again
// from its wall time, without restart — and at start when the files changed while the daemon was down.
extension Engine {
    /// The zones this engine evaluates schedules in: the device zone and every pinned zone it resolved.
    /// What the daemon watches (the files behind these names).
    public var zoneNamesInUse: [String] {
        Array(Set(state.zoneCache.keys).union([deviceZone.name])).sorted()
    }

    /// The zone files may have changed (an inotify event on them, or a start): flushes every zone cache
    /// (the resolver's process-wide one included), reloads the zones in use and re-resolves the pending
    /// schedules of each zone whose rules changed. What was due before the change is delivered first,
    /// under the rules it was scheduled by. Returns what moved (for the log). O(pending schedules of the
    /// changed zones) plus one reload per zone in use.
    @discardableResult
    public func zoneFilesChanged(now: Instant) throws(EngineError) -> [ZoneRulesChange] {
        try advance(to: now, mode: .wallClock)
        return try ZoneRulesUpdate(state: state).recheck(now: now, flush: true)
    }
}

/// A tzdata update as a part of the engine over its one state (docs/architecture.md "The engine's parts"):
/// reloads the zones in use, compares their digests with the store's, re-resolves what moved.
/// `Engine.zoneFilesChanged` first delivers what was due under the old rules, then runs `recheck`.
struct ZoneRulesUpdate {
    let state: EngineState

    /// Compares the digests of the zones in use (the cached ones, the device zone, every pinned zone in the
    /// store) with the recorded ones and re-resolves, in ONE transaction, the schedules of each zone whose
    /// rules changed; records the new digests and the tzdata release. `flush`: forget cached rules first (a
    /// running process; at start nothing is cached yet). Invariant: nothing that fired fires again; the
    /// wheel follows only after COMMIT. O(pending schedules of the changed zones) plus one reload per zone.
    func recheck(now: Instant, flush: Bool) throws(EngineError) -> [ZoneRulesChange] {
        var names = Set(state.zoneCache.keys).union([state.deviceZone.name])
        names.formUnion(try storeCalls { () throws(StoreError) in try state.store.schedules.pinnedZoneNames() })
        let previous = state.zoneCache.merging([state.deviceZone.name: state.deviceZone]) { _, device in device }
        if flush {
            state.zones.flush()
            state.zoneCache.removeAll(keepingCapacity: true)
            state.specCache.removeAll(keepingCapacity: true)
        }
        var current: [String: TimeZoneRules] = [:]
        for name in names {
            if let rules = try? state.zones.zone(named: name) {
                current[name] = rules
            } else if name == state.deviceZone.name {
                current[name] = state.deviceZone  // a TZ string or /etc/localtime file: not reloadable by name
            }
        }
        if let device = current[state.deviceZone.name] { state.deviceZone = device }
        for (name, rules) in current { state.zoneCache[name] = rules }
        let recorded = try storeCalls { () throws(StoreError) in try state.store.meta.zoneHashes() }
        var changes: [ZoneRulesChange] = []
        _ = try state.transaction { (wheelChanges: inout ChangeSet) throws(StoreError) in
            for name in current.keys.sorted() {
                guard let rules = current[name] else { continue }
                let digest = rules.contentDigest
                if let known = recorded[name], known != digest {
                    let moved = try state.wrap { () throws(EngineError) in
                        try reresolve(zone: name, old: previous[name], new: rules, now: now, changes: &wheelChanges)
                    }
                    changes.append(ZoneRulesChange(zone: name, moved: moved))
                }
                if recorded[name] != digest { try state.store.meta.setZoneHash(name, digest) }
            }
            if let version = state.zones.tzdataVersion, try state.store.meta.value("tzdata_version") != version {
                try state.store.meta.set("tzdata_version", version)
            }
        }
        return changes
    }

    /// Within a transaction: every pending schedule evaluated in `zone` gets its due again from its wall time
    /// under `new`. A one-shot takes its wall time's instant (late if that has passed: the grace rule
    /// applies at the next advance). A calendar continues after its last occurrence, mapped to the new
    /// rules through its wall time when the old rules are known (so nothing that fired fires again; an
    /// occurrence the new rules put in the past is late, like a one-shot's); one whose `until` leaves it
    /// nothing is `expired`.
    private func reresolve(zone name: String, old: TimeZoneRules?, new: TimeZoneRules, now: Instant,
                           changes: inout ChangeSet) throws(EngineError) -> [ZoneRulesChange.Moved] {
        let affected = try storeCalls { () throws(StoreError) -> [StoredSchedule] in
            var rows = try state.store.schedules.pinned(zone: name)
            if name == state.deviceZone.name { rows += try state.store.schedules.floating().filter { $0.zone == nil } }
            return rows
        }
        var moved: [ZoneRulesChange.Moved] = []
        var seen = Set<Int64>()
        for var s in affected where s.kind != .fixedAt && seen.insert(s.key).inserted {
            let next: Instant?
            do throws(EngineError) {
                if s.kind == .calendar {
                    // After the last occurrence's wall time under the new rules; without the old rules (at
                    // start) after the last occurrence and `now`, so nothing fires twice either way.
                    var base = s.storedAt
                    if let last = s.lastDue {
                        if let old, try ZoneResolution(state: state).evaluationZone(s).name == name {
                            base = max(last, new.resolve(old.localDateTime(at: last)).instant)
                        } else {
                            base = max(last, now)
                        }
                    }
                    next = try ZoneResolution(state: state).nextElapse(s, after: base)
                } else {
                    next = try ZoneResolution(state: state).oneShotDue(s)
                }
            } catch {
                continue  // cannot be evaluated any more: keeps its due; `advance` ends it
            }
            guard let next else {
                changes.disarm(key: s.key)
                try storeCalls { () throws(StoreError) in try Endings(state: state).expire(s, now: now) }
                continue
            }
            guard next != s.next else { continue }
            moved.append(ZoneRulesChange.Moved(id: s.id, from: s.next, to: next))
            s.next = next
            try storeCalls { () throws(StoreError) in try state.store.schedules.updateNext(key: s.key, next: next, lastDue: s.lastDue) }
            changes.arm(key: s.key, due: next)
        }
        return moved
    }
}
