import Synchronization

/// The write-ahead log's frames after the last commit, as the WAL hook of the store's connection records
/// them (on the committing thread), and how many of them a checkpoint has copied into the database file
/// (either thread); shared by the store and its `WALCheckpointer`.
final class WALFrames: Sendable {
    private struct Counts { var frames = 0, copied = 0 }
    private let counts = Mutex(Counts())
    /// The checkpointer's threshold (frames).
    let threshold: Int
    /// Told (on the committing thread, outside the lock) after each commit that leaves a checkpoint
    /// due: so the checkpointer sleeps until there is work, instead of looking on a timer.
    private let whenDue: @Sendable () -> Void
    init(threshold: Int, whenDue: @escaping @Sendable () -> Void = {}) { self.threshold = threshold; self.whenDue = whenDue }

    /// The hook: `frames` in the log after a commit. Fewer than were copied: the log was restarted.
    /// Calls `whenDue` when the log now holds at least `threshold` frames, some not yet copied.
    func record(_ frames: Int) {
        let due = counts.withLock { counts -> Bool in
            if frames < counts.copied { counts.copied = 0 }
            counts.frames = frames
            return frames >= threshold && frames > counts.copied
        }
        if due { whenDue() }
    }

    /// A checkpoint's result: `copied` of the log's frames are in the database file.
    func recordCopied(_ copied: Int) { counts.withLock { $0.copied = max($0.copied, copied) } }

    /// Both counts at one instant (one lock), for a decision that needs more than one of them.
    struct Snapshot {
        let frames: Int, copied: Int
        /// Frames in the log not yet copied.
        var uncopied: Int { max(0, frames - copied) }
        /// Whether a checkpoint has copied part of this log (since it last restarted).
        var partlyCopied: Bool { copied > 0 && copied < frames }
    }
    var snapshot: Snapshot { counts.withLock { Snapshot(frames: $0.frames, copied: $0.copied) } }

    var frames: Int { counts.withLock { $0.frames } }
    /// Frames in the log not yet copied.
    var uncopied: Int { snapshot.uncopied }
}

/// The store's checkpoints off the committing thread (docs/store.md "Checkpoints"): the store's
/// connection no longer checkpoints inside a COMMIT (`SQLiteScheduleStore.handCheckpoints(to:)`); a
/// second connection, used only by the thread that calls `checkpointIfDue` (when told by `whenDue`),
/// runs `PRAGMA wal_checkpoint(PASSIVE)` once the log holds `threshold` frames. WAL lets a checkpoint run
/// beside the writer: PASSIVE never waits for a lock and the writer never waits for the checkpoint.
public final class WALCheckpointer: Sendable {
    /// What one `checkpointIfDue` did.
    public enum Outcome: Sendable, Equatable {
        /// Nothing to do: fewer than `threshold` frames in the log, or every one of them copied.
        case idle
        /// A checkpoint ran: the log held `log` frames, `copied` of them are now in the database file.
        case checkpointed(log: Int, copied: Int)
        /// The checkpoint (or opening its connection) failed; the next attempt opens a new connection.
        case failed(String)
    }

    private struct State: ~Copyable {
        var connection: SQLiteConnection?
    }

    let path: String
    let frames: WALFrames
    private let state = Mutex(State())
    /// Frames in the log before a checkpoint is due: SQLite's own autocheckpoint default (1000 pages).
    public var threshold: Int { frames.threshold }

    /// `whenDue` is called on the committing thread after each commit that leaves a checkpoint due
    /// (at least `threshold` frames, some not copied): the owner's thread waits for it, then calls
    /// `checkpointIfDue`. It must not block (a condition variable's signal).
    public init(path: String, threshold: Int = 1000, whenDue: @escaping @Sendable () -> Void = {}) {
        self.path = path; frames = WALFrames(threshold: threshold, whenDue: whenDue)
    }

    /// The frames the log held after the last commit (as recorded by the store's WAL hook).
    public var framesInLog: Int { frames.frames }

    /// Checkpoints (PASSIVE) when the log holds at least `threshold` frames, some not yet copied. Runs
    /// on the checkpointer's thread only; never blocks the store's connection. A result with
    /// `copied < log` means the writer committed meanwhile: call again soon.
    public func checkpointIfDue() -> Outcome {
        let log = frames.snapshot
        guard log.frames >= threshold, log.uncopied > 0 else { return .idle }
        return state.withLock { state -> Outcome in
            do throws(SQLiteError) {
                if state.connection == nil {
                    let opened = try SQLiteConnection(openingExisting: path)
                    // A connection learns the file is in WAL mode at its first read (else the checkpoint
                    // answers -1 frames and does nothing).
                    do throws(SQLiteError) { try opened.execute("SELECT count(*) FROM sqlite_master") } catch {
                        opened.close()
                        throw error
                    }
                    state.connection = opened
                }
                guard let connection = state.connection else { return .idle }
                let done = try connection.checkpointPassive()
                frames.recordCopied(done.copied)
                return .checkpointed(log: done.log, copied: done.copied)
            } catch {
                state.connection?.close()
                state.connection = nil
                return .failed(error.description)
            }
        }
    }

    /// Closes the checkpointer's connection (the store's own close then removes the WAL, as the last one).
    public func close() {
        state.withLock { state in
            state.connection?.close()
            state.connection = nil
        }
    }
}

extension SQLiteScheduleStore {
    /// The most frames a commit copies itself to finish a checkpoint (1 MiB at 8 KiB pages).
    public static let checkpointTail = 128

    /// Stops this connection's automatic checkpoints (they ran inside whichever COMMIT crossed 1000
    /// frames: copying up to 8 MiB and an fsync of the database file on the committing thread) and
    /// records the log's size for `checkpointer`, whose owner must then call `checkpointIfDue` from
    /// another thread.
    public func handCheckpoints(to checkpointer: WALCheckpointer) {
        walFrames = checkpointer.frames
        db.recordWALFrames(into: checkpointer.frames)
    }

    /// After a commit: SQLite restarts the log (and truncates it to `journal_size_limit`) only when a
    /// write begins with every frame copied, which a checkpoint beside a busy writer never sees (the
    /// writer commits while it copies: the log grew to 1.7 GB in a 1M cancellation job). So once the
    /// checkpointer has copied all but at most `checkpointTail` frames, the committing connection
    /// copies the rest itself (PASSIVE: skipped if the checkpointer holds its lock); a log beyond 16
    /// times the threshold is checkpointed here whole (a guard, not a path taken in the benchmarks).
    func finishCheckpoint(_ frames: WALFrames) {
        let log = frames.snapshot
        guard (log.partlyCopied && log.uncopied <= Self.checkpointTail) || log.frames >= 16 * frames.threshold else { return }
        // With the sync at COMMIT off (the group commit's), the checkpoint still syncs the database file
        // before its frames count as copied: otherwise the log could restart over frames not yet on the disk.
        if let done = try? db.withSyncAtCommit({ () throws(SQLiteError) in try db.checkpointPassive() }) {
            frames.recordCopied(done.copied)
        }
    }
}
