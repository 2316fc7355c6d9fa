/// The disk half of the group commit (docs/faults.md "Group commit"; BENCHMARKS.md §9): the loop
/// COMMITs a group without syncing (`SQLiteScheduleStore.committingWithoutSync`) and goes on decoding
/// and committing the next calls, while a thread of its own `fdatasync`s the write-ahead log; a
/// group's answers (and its signals, and the deliveries it made due) wait until a sync that began
/// after its COMMIT has returned. At most one sync is under way; the groups committed meanwhile wait
/// for the next one, which then covers them all (PostgreSQL's WAL writer, in miniature).
///
/// Invariants: `whenDurable` and `afterDeferredCommit` actions run on the loop, in the order they were
/// given, each exactly once, and only after every deferred COMMIT made before they were given is on the
/// disk (or its sync failed: then with the failure). Not thread-safe: the loop only; the device
/// reports back through `synced(_:)` on the loop. O(1) per call, plus the actions run.
public final class SyncPipeline {
    /// What syncs the log for the pipeline: the daemon's sync thread, or a test's hand-driven double.
    public protocol Device: AnyObject {
        /// Starts one sync of the log off the loop; the owner calls `SyncPipeline.synced(_:)` on the loop
        /// when it returned. Never called again before that.
        func beginSync()
        /// Syncs the log on the calling thread (the loop, at shutdown); the failure, if any.
        func syncHere() -> String?
    }

    /// Runs one or more transactions with the store's sync at COMMIT off; true when it was off (false:
    /// the transactions synced themselves, nothing to wait for).
    public typealias Committing = (_ transactions: () -> Void) -> Bool

    private let device: Device
    private let committing: Committing
    /// Actions waiting for the sync under way (every commit they wait for began before it).
    private var waitingForRunning: [(String?) -> Void] = []
    /// Actions waiting for the next sync (a commit they wait for came after the running one began).
    private var waitingForNext: [(String?) -> Void] = []
    /// A deferred COMMIT happened since the last sync began.
    private var unsynced = false
    private var running = false
    /// How many syncs have returned, and how many deferred commits they covered (statistics).
    public private(set) var syncs = 0
    public private(set) var commits = 0

    public init(device: Device, committing: @escaping Committing) {
        self.device = device; self.committing = committing
    }

    /// Runs `transactions` (the group commit's) without syncing at COMMIT; true when the commits it made
    /// must wait for a sync (`afterDeferredCommit`), false when they synced themselves.
    public func commitWithoutSync(_ transactions: () -> Void) -> Bool {
        let deferred = committing(transactions)
        if deferred { unsynced = true; commits += 1 }
        return deferred
    }

    /// `action` once every deferred COMMIT so far is on the disk: at once when none waits, else after
    /// the sync that covers the last of them. Starts that sync if none is under way. O(1).
    public func whenDurable(_ action: @escaping (_ failure: String?) -> Void) {
        if unsynced {
            waitingForNext.append(action)
            startIfIdle()
        } else if running {
            waitingForRunning.append(action)
        } else {
            action(nil)
        }
    }

    /// Whether some commit has not yet reached the disk (a sync is under way or due).
    public var isWaiting: Bool { running || unsynced }

    /// Whether a sync is under way (the device has not reported it yet).
    public var isSyncing: Bool { running }

    /// `action` once the sync under way has returned, after the actions it covered (at once when none
    /// is under way); at shutdown (`drain`) too. On the loop; O(1).
    public func afterRunningSync(_ action: @escaping () -> Void) {
        guard running else { return action() }
        waitingForRunning.append { _ in action() }
    }

    /// The device's report, on the loop: the sync under way returned (`failure`: its error). Runs the
    /// actions it covered, after starting the next sync when commits came meanwhile.
    public func synced(_ failure: String?) {
        guard running else { return }  // a report after `drain` (the loop is ending)
        running = false
        syncs += 1
        let done = waitingForRunning
        waitingForRunning = []
        startIfIdle()
        for action in done { action(failure) }
    }

    /// Shutdown: syncs on the calling thread and runs every waiting action (after the running sync's
    /// report, when one is under way, can no longer come: the loop is ending).
    public func drain() {
        guard running || unsynced || !waitingForRunning.isEmpty || !waitingForNext.isEmpty else { return }
        let failure = device.syncHere()
        let done = waitingForRunning + waitingForNext
        waitingForRunning = []; waitingForNext = []
        running = false; unsynced = false
        for action in done { action(failure) }
    }

    private func startIfIdle() {
        guard !running, unsynced else { return }
        running = true
        unsynced = false
        waitingForRunning = waitingForNext
        waitingForNext = []
        device.beginSync()
    }
}
