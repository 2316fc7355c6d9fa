/// Fair service between apps (CONTRACT §8 "Fair service", issue 31 item 4; docs/faults.md "Fair
/// service"): an app's calls that cannot run at once wait in one lane per app (the caller's app; "" for
/// calls that act for none, the clock methods) and are served through its `LoopWork` (`.fairService`
/// below the bus and the group commit), lane after lane in turn, a bounded amount of work per turn: ONE
/// call that is not a write, or the writes at the head of the lane up to `writeBudget` cost units (at
/// least one), handed to the group commit (`enqueueWrite`). So the bus hands over every message already
/// waiting between two turns, and one app's flood — however many calls, however many connections, reads or
/// writes — puts at most one turn of its work before another app's call: that call waits for the turn in
/// progress and one turn of each other app with work waiting, not for the flood.
///
/// Order within an app is kept: its lane is FIFO, and the service sends an app's write to the lane (not to
/// the group commit) whenever the app has work waiting there (`hasWaiting(lane:)`), so a call never sees a
/// write its app sent after it nor misses one sent before it (every call commits the writes handed over
/// before it: `GroupCommit.flush`). A turn that hands writes over also hands over the head writes of the
/// lanes next in turn whose head is a write (each in its own turn, with its own budget), so that apps'
/// writes still share one commit. Without a loop (tests, the fuzzer) everything runs at once.
/// Costs: O(1) amortized per call enqueued and served.
public final class FairQueue {
    /// The cost units of writes one lane hands to the group commit in one turn (at least one write, however
    /// costly). A unit is about one pushed schedule (`GroupCommit.Operation.cost`): 1,000 ≈ one full
    /// `PushBatch` of 1,000, or one `CancelRun`/`Track` (its first slice of 250 cancellations, each several
    /// rows); about 20 ms of a release build's loop.
    public static let writeBudget = 1_000

    private struct Entry {
        let work: () -> Void
        /// nil for a call that is not a write.
        let writeCost: Int?
    }

    /// Waiting work per lane, FIFO (`heads`: the index of each lane's next entry).
    private var lanes: [String: [Entry]] = [:]
    private var heads: [String: Int] = [:]
    /// Lanes with work waiting, in turn order: the next turn is the first's. Each lane is in it once.
    private var turn: [String] = []
    private var turnHead = 0
    private var scheduled = false
    /// Runs `serveNext` in a later loop iteration (no loop: everything at once).
    private var work: LoopWork!

    /// `loop`: where the turns run (`.fairService`); nil: every call at once. `log`: where a refused
    /// turn is reported (then every waiting call runs at once).
    public init(loop: LoopScheduler? = nil, log: ServiceLog? = nil) {
        work = LoopWork(.fairService, on: loop, whenRefused: { [unowned self] error in
            scheduled = false
            log?.error("cannot schedule the next call (\(error)): the waiting calls run at once")
            drainAll()
        }) { [unowned self] in serveNext() }
    }

    /// Entries waiting, in every lane.
    public var waiting: Int { lanes.reduce(0) { $0 + $1.value.count - (heads[$1.key] ?? 0) } }

    /// Whether `lane` has work waiting. O(1).
    public func hasWaiting(lane: String) -> Bool { (heads[lane] ?? 0) < (lanes[lane]?.count ?? 0) }

    /// Queues a call that is not a write in `lane` (served alone in a turn of its own), or runs it at once
    /// without a loop. O(1) amortized.
    public func enqueue(lane: String, _ work: @escaping () -> Void) {
        add(Entry(work: work, writeCost: nil), lane: lane)
    }

    /// Queues `work` in `lane` ahead of the calls waiting there but `behind` of them (0: at the head, so
    /// the lane's next turn is its): an app's cancellation slice (`CancelSlicing`), so that an app's
    /// background work keeps pace with its calls instead of waiting behind them, and its calls with it.
    /// Runs it at once without a loop. O(1) amortized at the head, O(waiting in the lane) behind.
    public func enqueueAhead(lane: String, behind: Int = 0, _ work: @escaping () -> Void) {
        let entry = Entry(work: work, writeCost: nil)
        guard self.work.isLooped else { return entry.work() }
        guard lanes[lane] != nil, let head = heads[lane] else { return add(entry, lane: lane) }
        let position = head + min(max(behind, 0), lanes[lane]!.count - head)
        if position == head, head > 0 {
            lanes[lane]![head - 1] = entry
            heads[lane] = head - 1
        } else {
            lanes[lane]!.insert(entry, at: position)
        }
        schedule()
    }

    /// Whether calls wait for a turn (a loop runs them); without one every entry runs at once.
    public var takesTurns: Bool { work.isLooped }

    /// Queues a write of `cost` units in `lane`; `handOver` gives it to the group commit in the lane's turn
    /// (at once without a loop). O(1) amortized.
    public func enqueueWrite(lane: String, cost: Int, _ handOver: @escaping () -> Void) {
        add(Entry(work: handOver, writeCost: max(cost, 1)), lane: lane)
    }

    private func add(_ entry: Entry, lane: String) {
        guard work.isLooped else { return entry.work() }
        if lanes[lane] == nil {
            lanes[lane] = []
            heads[lane] = 0
            turn.append(lane)
        }
        lanes[lane]!.append(entry)
        schedule()
    }

    /// The loop work's action: one turn — the next lane's first call, or its head writes up to `writeBudget`
    /// (and the head writes of the lanes next in turn whose head is a write, each one turn); each lane served
    /// goes to the back of the turn.
    public func serveNext() {
        scheduled = false
        guard turnHead < turn.count else { return }
        let lane = turn[turnHead]
        guard let first = peek(lane) else {
            turnHead += 1
            removeLane(lane)
            return serveNextLater()
        }
        var work: [() -> Void] = []
        if first.writeCost == nil {
            work.append(pop(lane)!.work)
            endTurn(lane)
        } else {
            // Writes: this lane's, then those of the lanes after it whose head is a write, one turn each.
            var lanesLeft = turn.count - turnHead
            while lanesLeft > 0, turnHead < turn.count, peek(turn[turnHead])?.writeCost != nil {
                lanesLeft -= 1
                let next = turn[turnHead]
                var spent = 0
                while let entry = peek(next), let cost = entry.writeCost, spent == 0 || spent + cost <= Self.writeBudget {
                    _ = pop(next)
                    spent += cost
                    work.append(entry.work)
                }
                endTurn(next)
            }
        }
        compactTurn()
        for w in work { w() }
        serveNextLater()
    }

    /// Runs every waiting entry of `lane` now, in order.
    public func drain(lane: String) {
        while let entry = pop(lane) { entry.work() }
        if lanes[lane] != nil { removeLane(lane) }
    }

    /// Runs every waiting entry now (at SIGTERM, after the calls taken off the bus).
    public func drainAll() {
        while turnHead < turn.count {
            let lane = turn[turnHead]
            turnHead += 1
            drain(lane: lane)
        }
        turn.removeAll()
        turnHead = 0
    }

    /// The lane at the head of the turn has had its turn: to the back when it has work left, else gone.
    private func endTurn(_ lane: String) {
        turnHead += 1
        if hasWaiting(lane: lane) { turn.append(lane) } else { lanes[lane] = nil; heads[lane] = nil }
    }

    private func peek(_ lane: String) -> Entry? {
        guard let head = heads[lane], let entries = lanes[lane], head < entries.count else { return nil }
        return entries[head]
    }

    /// The lane's next entry, taken off it. Its slot lets go of the work at once: a served slot stays in the
    /// array until a long flood compacts it, and its closure holds what the call holds (a PushBatch's
    /// request, its decoded pushes: ~1 KB a push). Kept, a bulk load that never let its lane empty held up
    /// to 1,023 served batches — the daemon grew ~60 MB/s to 1 GB (issue 35, found with heaptrack). O(1)
    /// amortized.
    private func pop(_ lane: String) -> Entry? {
        guard let entry = peek(lane), let head = heads[lane] else { return nil }
        if head >= 1024 && head * 2 >= lanes[lane]!.count {  // a long flood: drop what was served
            lanes[lane]!.removeFirst(head + 1)
            heads[lane] = 0
        } else {
            lanes[lane]![head] = Entry(work: {}, writeCost: nil)  // served: holds nothing
            heads[lane] = head + 1
        }
        return entry
    }

    private func removeLane(_ lane: String) {
        lanes[lane] = nil
        heads[lane] = nil
        // Drained out of turn (`drain`): leave the turn too, so that entries queued later get one turn.
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
        guard !scheduled, work.isLooped else { return }
        scheduled = true
        work.request()
    }
}
