import SchedCalendar
import Scheduler
import ScheddSystem

/// Decodes large `PushBatch` calls on a thread of its own (docs/faults.md "Group commit"),
/// so that the loop applies and commits one batch while the next one is decoded: in a bulk load the
/// decode is about a third of the daemon's CPU per push (BENCHMARKS.md §1c), and on two cores it now
/// runs beside the loop instead of before it.
///
/// Order is unchanged: the group commit keeps a decoding batch in its place in the queue
/// (`GroupCommit.Operation.decoding`), applies only the writes before it, and waits for it when it is
/// first (`DecodingPushBatch.operation()` blocks). Decoding is pure — the decoder reads only the bytes
/// and the zone resolver (`Sendable`, its cache behind a lock) — so what a batch decodes to does not
/// depend on the thread. One job at a time, in submission order; O(1) to submit.
public final class PushBatchDecoder: @unchecked Sendable {
    /// Batches with fewer entries are decoded on the loop at once: the hand-over costs two wake-ups.
    public static let minimumEntries = 64

    private typealias Job = (texts: [String], zones: any ZoneResolver, rules: SandboxedPushRules?, result: DecodingPushBatch)
    // Guarded by `lock`: the jobs not yet taken, oldest first, and whether the thread should end.
    private var jobs: [Job] = []
    private var stopping = false
    private let lock = ConditionLock()

    /// Whether its thread runs (`start` made it): `Service` hands it batches only then, and decodes every
    /// call on the loop otherwise. Written once by `start`, read on the loop thread only.
    public private(set) var isRunning = false

    /// A decoder whose thread is not started yet (`start`): made with the service, in `init`.
    public init() {}

    /// Starts the decoding thread with `startThread` (the daemon's one place that makes threads; it
    /// returns false when none could be made). Called once, when the daemon starts serving: after it
    /// blocked SIGTERM and SIGINT for the process (a thread made before would take them, and die of
    /// them, instead of the loop's signal source). Returns whether the thread runs (`isRunning`).
    public func start(thread startThread: (@escaping @Sendable () -> Void) -> Bool) -> Bool {
        precondition(!isRunning, "PushBatchDecoder started twice")
        isRunning = startThread({ [self] in run() })
        return isRunning
    }

    /// Hands `texts` to the thread (checked against a sandboxed caller's `rules`, nil: unsandboxed);
    /// the result is to be waited for on the loop. O(1).
    public func submit(_ texts: [String], zones: any ZoneResolver, rules: SandboxedPushRules? = nil) -> DecodingPushBatch {
        let result = DecodingPushBatch(entries: texts.count)
        lock.withLock {
            jobs.append((texts, zones, rules, result))
            lock.signal()
        }
        return result
    }

    /// Ends the thread after the job under way; jobs not yet taken are decoded on the caller's
    /// `operation()` instead (nothing submitted is ever left unanswered).
    public func stop() {
        let left = lock.withLock { () -> [Job] in
            stopping = true
            lock.signal()
            defer { jobs.removeAll() }
            return jobs
        }
        for job in left { job.result.fulfil(Service.decodeBatch(job.texts, zones: job.zones, rules: job.rules)) }
    }

    private func run() {
        while true {
            let job = lock.withLock { () -> Job? in
                while jobs.isEmpty && !stopping { lock.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let job else { return }
            job.result.fulfil(Service.decodeBatch(job.texts, zones: job.zones, rules: job.rules))
        }
    }
}

/// One `PushBatch` being decoded by `PushBatchDecoder`: fulfilled once by the thread, read on the loop.
public final class DecodingPushBatch: @unchecked Sendable {
    // Guarded by `lock`.
    private var decoded: GroupCommit.Operation?
    private let lock = ConditionLock()
    /// How many pushes the call holds (what it costs: `GroupCommit.Operation.cost`).
    public let entries: Int

    init(entries: Int) { self.entries = entries }

    /// Whether the thread is done with it (the group commit applies it without waiting).
    public var isReady: Bool { lock.withLock { decoded != nil } }

    /// The decoded batch, waiting for the thread when it is not done yet.
    public func operation() -> GroupCommit.Operation {
        lock.withLock {
            while decoded == nil { lock.wait() }
            return decoded!
        }
    }

    func fulfil(_ operation: GroupCommit.Operation) {
        lock.withLock {
            decoded = operation
            lock.signal()
        }
    }
}
