/// Fair service between apps (CONTRACT §8 "Fair service", issue 31 item 4; docs/faults.md "Fair
/// service"): the calls that are not writes wait in one lane per app (the caller's app; "" for calls that
/// act for none, the clock methods) and are served one call per loop iteration, lane after lane in turn,
/// through `trigger` (an sd-event defer source below the bus and the group commit). So the bus hands over
/// every message already waiting between two calls, and one app's flood — however many calls, however
/// many connections — puts at most one of its calls before another app's: that app's call waits for the
/// call in progress and one call of each other app with calls waiting, not for the flood.
///
/// Order within an app is kept: its lane is FIFO, and a write of that app (which goes to the group commit
/// at once) first runs the app's waiting calls (`drain(lane:)`), so a call never sees a write its app sent
/// after it; every call already commits the writes before it (`GroupCommit.flush`).
/// Without a trigger (tests, the fuzzer) a call runs at once. Costs: O(1) per call enqueued and served.
public final class FairQueue {
    /// Waiting calls per lane, FIFO (`heads`: the index of each lane's next call).
    private var lanes: [String: [() -> Void]] = [:]
    private var heads: [String: Int] = [:]
    /// Lanes with calls waiting, in turn order: the next call comes from the first.
    private var turn: [String] = []
    private var turnHead = 0
    private var scheduled = false
    /// Runs `serveNext` in a later loop iteration (set by the wiring; nil: every call at once).
    public var trigger: LoopTrigger?
    /// Reports a trigger the loop refused (then every waiting call runs at once).
    public var onTriggerFailure: ((LoopTriggerError) -> Void)?

    public init() {}

    /// Calls waiting, in every lane.
    public var waiting: Int { lanes.reduce(0) { $0 + $1.value.count - (heads[$1.key] ?? 0) } }

    /// Queues `work` in `lane` (served in turn), or runs it at once without a trigger. O(1) amortized.
    public func enqueue(lane: String, _ work: @escaping () -> Void) {
        guard trigger != nil else { return work() }
        if lanes[lane] == nil {
            lanes[lane] = []
            heads[lane] = 0
            turn.append(lane)
        }
        lanes[lane]!.append(work)
        schedule()
    }

    /// The trigger's action: the next lane's first call, then that lane goes to the back of the turn.
    public func serveNext() {
        scheduled = false
        guard turnHead < turn.count else { return }
        let lane = turn[turnHead]
        turnHead += 1
        guard let work = pop(lane) else { return serveNextLater() }
        if hasWaiting(lane) { turn.append(lane) } else { removeLane(lane) }
        compactTurn()
        work()
        serveNextLater()
    }

    /// Runs every waiting call of `lane` now, in order (a write of that app keeps its place after them).
    public func drain(lane: String) {
        while let work = pop(lane) { work() }
        if lanes[lane] != nil { removeLane(lane) }
    }

    /// Runs every waiting call now (at SIGTERM, after the calls taken off the bus).
    public func drainAll() {
        while turnHead < turn.count {
            let lane = turn[turnHead]
            turnHead += 1
            drain(lane: lane)
        }
        turn.removeAll()
        turnHead = 0
    }

    private func pop(_ lane: String) -> (() -> Void)? {
        guard let head = heads[lane], let calls = lanes[lane], head < calls.count else { return nil }
        heads[lane] = head + 1
        return calls[head]
    }

    private func hasWaiting(_ lane: String) -> Bool { (heads[lane] ?? 0) < (lanes[lane]?.count ?? 0) }

    private func removeLane(_ lane: String) {
        lanes[lane] = nil
        heads[lane] = nil
        // Drained out of turn (`drain`): leave the turn too, so that calls queued later get one turn.
        if let i = turn[turnHead...].firstIndex(of: lane) { turn.remove(at: i) }
    }

    private func compactTurn() {
        if turnHead > 64 && turnHead * 2 > turn.count {
            turn.removeFirst(turnHead)
            turnHead = 0
        }
    }

    private func serveNextLater() {
        if turnHead < turn.count { schedule() }
    }

    private func schedule() {
        guard !scheduled, let trigger else { return }
        scheduled = true
        do throws(LoopTriggerError) {
            try trigger.trigger()
        } catch {
            scheduled = false
            onTriggerFailure?(error)
            drainAll()
        }
    }
}
