/// The disk half of the group commit (docs/faults.md "Group commit"; BENCHMARKS.md §9): the loop
/// COMMITs a group without syncing (`SQLiteScheduleStore.committingWithoutSync`) and goes on decoding
/// and committing the next calls, while a thread of its own `fdatasync`s the write-ahead log; a
/// group's answers (and its signals, and the deliveries it made due) wait until a sync that began
/// after its COMMIT has returned. At most one sync is under way; the groups committed meanwhile wait
/// for the next one, which then covers them all (PostgreSQL's WAL writer, in miniature).
///
/// Each deferred COMMIT gets a number (`Commit`, from 1, in commit order); an action waits for the
/// commits up to a number (`whenDurable(through:)`): all of them, or only those an app's own writes
/// were in, so that one app's flood of writes on a slow disk never delays another app's read
/// (FairServiceTests; docs/faults.md "Fair service").
///
/// Invariants: `whenDurable` actions run on the loop, each exactly once, only once every deferred
/// COMMIT up to the number they wait for is on the disk (or the sync that covered it failed: then with
/// the failure); actions that a sync covers run in the order they were given. Not thread-safe: the loop
/// only; the device reports back through `synced(_:)` on the loop. O(1) per call, plus O(actions
/// waiting) per sync's report.
public final class SyncPipeline {
    /// What syncs the log for the pipeline: the daemon's sync thread, or a test's hand-driven double.
    public protocol Device: AnyObject {
        /// Starts one sync of the log off the loop; the owner calls `SyncPipeline.synced(_:)` on the loop
        /// when it returned. Never called again before that.
        func beginSync()
        /// Syncs the log on the calling thread (the loop, at shutdown); the failure, if any.
        func syncHere() -> String?
    }

    /// The number of a deferred COMMIT: 1 for the first, in commit order; 0 stands for "none".
    public typealias Commit = UInt64

    /// Runs one or more transactions with the store's sync at COMMIT off; true when it was off (false:
    /// the transactions synced themselves, nothing to wait for).
    public typealias Committing = (_ transactions: () -> Void) -> Bool

    private let device: Device
    private let committing: Committing
    /// Actions waiting for a sync, in the order given, each with the commit it waits for.
    private var waiting: [(through: Commit, action: (String?) -> Void)] = []
    /// Actions waiting for the sync under way to return (`afterRunningSync`).
    private var afterRunning: [() -> Void] = []
    /// The last deferred COMMIT made, and the last known to be on the disk.
    public private(set) var lastCommit: Commit = 0
    private var durable: Commit = 0
    /// The last COMMIT the sync under way covers; nil when none is under way.
    private var running: Commit?
    /// The last deferred COMMIT each app's writes were in (`record`); an app's entry goes once known durable.
    private var lastCommitOfApp: [String: Commit] = [:]
    /// How many syncs have returned, and how many deferred commits there were (statistics).
    public private(set) var syncs = 0
    public var commits: Int { Int(lastCommit) }

    public init(device: Device, committing: @escaping Committing) {
        self.device = device; self.committing = committing
    }

    /// Runs `transactions` (the group commit's) without syncing at COMMIT; their number when the commits
    /// it made must wait for a sync (`whenDurable(through:)`), nil when they synced themselves.
    public func commitWithoutSync(_ transactions: () -> Void) -> Commit? {
        guard committing(transactions) else { return nil }
        lastCommit += 1
        return lastCommit
    }

    /// Notes that `commit` holds writes of `app` (`whenDurable(app:)` waits for it). O(1).
    public func record(_ commit: Commit, app: String) {
        lastCommitOfApp[app] = commit
    }

    /// `action` once every deferred COMMIT that holds writes of `app` (`record`) is on the disk; with no
    /// app, every deferred COMMIT so far. O(1).
    public func whenDurable(app: String?, _ action: @escaping (_ failure: String?) -> Void) {
        guard let app else { return whenDurable(action) }
        guard let last = lastCommitOfApp[app] else { return action(nil) }
        if last <= durable { lastCommitOfApp[app] = nil }
        whenDurable(through: last, action)
    }

    /// `action` once every deferred COMMIT up to `commit` (default: every one so far) is on the disk: at
    /// once when it is, else after the sync that covers it, which starts now if none is under way. O(1).
    public func whenDurable(through commit: Commit? = nil, _ action: @escaping (_ failure: String?) -> Void) {
        let through = min(commit ?? lastCommit, lastCommit)
        guard through > durable else { return action(nil) }
        waiting.append((through, action))
        startIfIdle()
    }

    /// Whether some deferred commit has not yet reached the disk (a sync is under way or due).
    public var isWaiting: Bool { lastCommit > durable }

    /// Whether a sync is under way (the device has not reported it yet).
    public var isSyncing: Bool { running != nil }

    /// `action` once the sync under way has returned, after the actions it covered (at once when none
    /// is under way); at shutdown (`drain`) too. On the loop; O(1).
    public func afterRunningSync(_ action: @escaping () -> Void) {
        guard running != nil else { return action() }
        afterRunning.append(action)
    }

    /// The device's report, on the loop: the sync under way returned (`failure`: its error). Runs the
    /// actions it covered (with the failure, if any), after starting the next sync when commits came
    /// meanwhile, then the `afterRunningSync` actions.
    public func synced(_ failure: String?) {
        guard let covered = running else { return }  // a report after `drain` (the loop is ending)
        running = nil
        syncs += 1
        if failure == nil {
            durable = max(durable, covered)
            if lastCommitOfApp.count > 64 { lastCommitOfApp = lastCommitOfApp.filter { $0.value > durable } }
        }
        var done: [(String?) -> Void] = []
        var left: [(through: Commit, action: (String?) -> Void)] = []
        for entry in waiting {
            if entry.through <= covered { done.append(entry.action) } else { left.append(entry) }
        }
        waiting = left
        let after = afterRunning
        afterRunning = []
        startIfIdle()
        for action in done { action(failure) }
        for action in after { action() }
    }

    /// Shutdown: syncs on the calling thread and runs every waiting action (after the running sync's
    /// report, when one is under way, can no longer come: the loop is ending).
    public func drain() {
        guard running != nil || !waiting.isEmpty || !afterRunning.isEmpty || lastCommit > durable else { return }
        let failure = device.syncHere()
        if failure == nil { durable = lastCommit }
        let done = waiting.map(\.action), after = afterRunning
        waiting = []; afterRunning = []
        running = nil
        for action in done { action(failure) }
        for action in after { action() }
    }

    /// Starts a sync of every commit so far when one is waited for and none is under way.
    private func startIfIdle() {
        guard running == nil, !waiting.isEmpty, lastCommit > durable else { return }
        running = lastCommit
        device.beginSync()
    }
}
