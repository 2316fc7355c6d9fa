import ScheddBus

/// App `Register` calls waiting for their endpoint, per connection token, each with its deadline (monotonic
/// µs), and the one loop timer that fires at the earliest deadline.
///
/// Invariants: no token maps to an empty list; after `rearm`, the timer is armed at the earliest deadline
/// held, or disarmed when none is held. `add` and `take` are O(1) amortised; `takeExpired` and `rearm` are
/// O(waiting calls) — at most one per app's Register in flight, so a handful.
struct EndpointWaiters {
    struct Waiter {
        let call: BusDeferredCall
        let deadline: UInt64
    }

    private var waiting: [String: [Waiter]] = [:]
    /// The loop timer that calls back at the earliest deadline (set once the connector starts).
    var timer: EventTimer?

    /// Holds `call` until token's endpoint is known or `deadline` passes.
    mutating func add(_ call: BusDeferredCall, token: String, deadline: UInt64) {
        waiting[token, default: []].append(Waiter(call: call, deadline: deadline))
    }

    /// Every call waiting on `token`, no longer held.
    mutating func take(token: String) -> [BusDeferredCall] {
        (waiting.removeValue(forKey: token) ?? []).map(\.call)
    }

    /// The calls whose deadline is at or before `now`, per token, no longer held; later ones stay.
    mutating func takeExpired(now: UInt64) -> [(token: String, calls: [BusDeferredCall])] {
        var expired: [(token: String, calls: [BusDeferredCall])] = []
        for (token, waiters) in waiting where waiters.contains(where: { $0.deadline <= now }) {
            expired.append((token, waiters.filter { $0.deadline <= now }.map(\.call)))
            let rest = waiters.filter { $0.deadline > now }
            waiting[token] = rest.isEmpty ? nil : rest
        }
        return expired
    }

    /// Arms the timer at the earliest deadline held, or disarms it when none is; throws when arming fails.
    func rearm() throws(BusError) {
        guard let earliest = waiting.values.lazy.flatMap({ $0.map(\.deadline) }).min() else {
            try? timer?.disarm()
            return
        }
        try timer?.arm(atMicroseconds: earliest)
    }
}
