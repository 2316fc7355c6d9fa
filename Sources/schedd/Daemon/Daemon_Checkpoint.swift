import Glibc
import Scheduler
import ScheddSystem
import Synchronization

/// The store's checkpoints on a thread of their own (docs/daemon-parts.md "Checkpoints"): a COMMIT on
/// the loop thread never runs a checkpoint (an fsync of the database file after copying up to 8 MiB
/// into it), so no call waits behind one. The thread looks every `interval` ms whether the log holds
/// SQLite's 1000 frames and checkpoints PASSIVE from its own connection.
final class CheckpointThread: Sendable {
    /// How often the thread looks at the log's size (ms).
    static let interval = 100
    let checkpointer: WALCheckpointer
    private let stopping = Mutex(false)
    private let thread = Mutex<pthread_t?>(nil)

    init(path: String) { checkpointer = WALCheckpointer(path: path) }

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
        stopping.withLock { $0 = true }
        guard let running = thread.withLock({ value -> pthread_t? in defer { value = nil }; return value }) else { return }
        pthread_join(running, nil)
    }

    private func run() {
        let logger = Logger()
        var failing = false
        var lastLogged: Int64?
        while !stopping.withLock({ $0 }) {
            var pause = Self.interval
            switch checkpointer.checkpointIfDue() {
            case .idle: break
            case .checkpointed(let log, let copied):
                if failing { logger.info("checkpoints of the write-ahead log resumed") }
                failing = false
                // The loop committed meanwhile: copy the rest soon, so that the tail left for a commit to
                // copy itself (SQLiteScheduleStore.checkpointTail) is short.
                if copied < log { pause = 2 }
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
            SystemTime.sleep(milliseconds: pause)
        }
        checkpointer.close()
    }
}
