import Glibc
import Scheduler
import ScheddSystem
import Synchronization

/// The store's checkpoints on a thread of their own (docs/daemon-parts.md "Checkpoints"): a COMMIT on
/// the loop thread never runs a checkpoint (an fsync of the database file after copying up to 8 MiB
/// into it), so no call waits behind one. The thread sleeps on a condition variable until a commit
/// leaves SQLite's 1000 frames in the log (the store's WAL hook tells it: `WALCheckpointer.whenDue`),
/// then checkpoints PASSIVE from its own connection. It has no timer: idle, it never wakes (CONTRACT
/// v3 §9 "Quiet when idle"; `IdleWakeupsTests`).
final class CheckpointThread: Sendable {
    let checkpointer: WALCheckpointer
    private let work = CheckpointWork()
    private let thread = Mutex<SystemThread?>(nil)

    init(path: String) {
        checkpointer = WALCheckpointer(path: path, whenDue: { [work] in work.commitLeftCheckpointDue() })
    }

    /// Starts the thread and hands `store`'s checkpoints to it; false (the store keeps checkpointing
    /// itself, inside its commits) when no thread could be started.
    func start(handingOver store: SQLiteScheduleStore) -> Bool {
        guard let created = startDaemonThread({ self.run() }) else { return false }
        thread.withLock { $0 = created }
        store.handCheckpoints(to: checkpointer)
        return true
    }

    /// Ends the thread (after the checkpoint under way, if any) and closes its connection. Idempotent.
    func stop() {
        work.stop()
        guard let running = thread.withLock({ value -> SystemThread? in defer { value = nil }; return value }) else { return }
        running.join()
    }

    private func run() {
        let logger = Logger()
        var failing = false
        var lastLogged: Int64?
        while work.waitForWork() {
            // A commit during this checkpoint sets `due` again (its frames are not all copied), so the
            // rest is copied at once; the last `SQLiteScheduleStore.checkpointTail` frames the loop's
            // next commit copies itself. A failure is retried at the next commit, not on a timer.
            switch checkpointer.checkpointIfDue() {
            case .idle: break
            case .checkpointed:
                if failing { logger.info("checkpoints of the write-ahead log resumed") }
                failing = false
            case .failed(let reason):
                // At most one line a minute while they fail (a full disk, a read-only file): the loop's own
                // commits report the storage failure to callers (docs/faults.md); the log just grows.
                let now = SystemTime.monotonicMilliseconds
                if !failing || lastLogged.map({ now - $0 >= 60_000 }) ?? true {
                    logger.warning("cannot checkpoint the write-ahead log (\(reason)); it grows until a checkpoint succeeds")
                    lastLogged = now
                }
                failing = true
            }
        }
        checkpointer.close()
    }
}

/// What the checkpoint thread waits for: a commit that left a checkpoint due, or a stop. A condition
/// variable, no timeout.
private final class CheckpointWork: @unchecked Sendable {
    private let wake = ConditionLock()
    // Guarded by `wake`: a commit left a checkpoint due since the thread last looked; stop asked.
    private var due = false
    private var stopping = false

    /// On the committing thread (the loop), from the store's WAL hook: wakes the thread. O(1); holds the
    /// lock only as long as the thread does to look at the two flags.
    func commitLeftCheckpointDue() {
        wake.withLock {
            due = true
            wake.signal()
        }
    }

    func stop() {
        wake.withLock {
            stopping = true
            wake.signal()
        }
    }

    /// Waits for a due checkpoint or a stop; true to checkpoint, false to end.
    func waitForWork() -> Bool {
        wake.withLock {
            while !due && !stopping { wake.wait() }
            due = false
            return !stopping
        }
    }
}
