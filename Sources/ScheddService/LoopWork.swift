/// The loop work of the service's parts, in the order the loop runs it when several are due: every one
/// below the bus (priority 0), so that sd-bus hands over every message already waiting first. A smaller
/// value runs first (sd-event's order).
public enum LoopPriority: Int64, Sendable, CaseIterable {
    /// `GroupCommit.flushReady`: the writes taken off the bus, committed before anything else runs.
    case groupCommit = 10
    /// `FairQueue.serveNext`: one turn of one app's calls (CONTRACT §8 "Fair service").
    case fairService = 12
    /// `Delivery.recordLateFailures`: the notifier's late answers, recorded outside any engine call.
    case lateFailures = 15
    /// `Delivery.continueDelivery`: the next slice of a long catch-up.
    case delivery = 20
    /// `CancelSlicing.continueSlicing` (when no fair queue takes the slices in its lanes).
    case cancelSlices = 25
}

/// Where the parts get their loop work from: the daemon's sd-event loop (one defer source per piece of
/// work), a test's hand-driven loop, or none (nil: every part runs its work at once, in the caller's
/// stack: the dispatch fuzzer, most unit tests).
public protocol LoopScheduler: AnyObject {
    /// A source at `priority` that runs `action` once per `trigger()` (asking again before it ran does
    /// nothing more); nil when this scheduler leaves that work to run at once. A source the loop cannot
    /// make is the scheduler's to report (the daemon fails to start); it then returns nil.
    func source(_ priority: LoopPriority, _ action: @escaping () -> Void) -> LoopTrigger?
}

/// One part's piece of loop work (issue 32 item 4): the one way a part runs work later on the loop.
/// The part makes it in its `init` from the `LoopScheduler` it was given, with the work's priority and
/// what to do when the loop refuses a request (the part's policy: commit at once, run everything waiting,
/// stop and report, end the daemon). `request()` asks for one run in a later loop iteration; without a
/// loop the work runs at once. Loop only; O(1) per request.
public final class LoopWork {
    /// What a part does when the loop refuses to schedule its work (sd-event's defer source could not be
    /// enabled: out of memory, the loop ending). It runs in `request()`'s caller's stack.
    public typealias Refusal = (LoopTriggerError) -> Void

    public let priority: LoopPriority
    private var source: LoopTrigger?
    private let action: () -> Void
    private let refusal: Refusal

    /// `scheduler` nil: no loop; `request()` runs `action` at once. `action` is the part's own method (it
    /// captures the part `unowned`: the part owns its work).
    public init(_ priority: LoopPriority, on scheduler: LoopScheduler?, whenRefused refusal: @escaping Refusal,
                _ action: @escaping () -> Void) {
        self.priority = priority
        self.refusal = refusal
        self.action = action
        source = scheduler?.source(priority) { [unowned self] in self.action() }
    }

    /// Whether the work runs on the loop (false: at once, in `request()`).
    public var isLooped: Bool { source != nil }

    /// One run of the work in a later loop iteration (once, however often asked before it ran); at once
    /// without a loop; the part's `Refusal` when the loop refuses.
    public func request() {
        guard let source else { return action() }
        do throws(LoopTriggerError) {
            try source.trigger()
        } catch {
            refusal(error)
        }
    }
}
