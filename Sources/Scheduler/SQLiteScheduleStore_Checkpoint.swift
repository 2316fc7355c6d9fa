import Synchronization

/// How many frames the write-ahead log holds after the last commit, as the WAL hook of the store's
/// connection records it (on the committing thread) for the checkpointer to read (on its own).
final class WALFrames: Sendable {
    private let count = Mutex(0)
    func record(_ frames: Int) { count.withLock { $0 = frames } }
    var frames: Int { count.withLock { $0 } }
}

/// The store's checkpoints off the committing thread (docs/store.md "Checkpoints"): the store's
/// connection no longer checkpoints inside a COMMIT (`SQLiteScheduleStore.handCheckpoints(to:)`); a
/// second connection, used only by the thread that calls `checkpointIfDue`, runs
/// `PRAGMA wal_checkpoint(PASSIVE)` once the log holds `threshold` frames. WAL lets a checkpoint run
/// beside the writer: PASSIVE never waits for a lock and the writer never waits for the checkpoint.
public final class WALCheckpointer: Sendable {
    /// What one `checkpointIfDue` did.
    public enum Outcome: Sendable, Equatable {
        /// Nothing to do: fewer than `threshold` frames, or none new since the last attempt.
        case idle
        /// A checkpoint ran: the log held `log` frames, `copied` of them are now in the database file.
        case checkpointed(log: Int, copied: Int)
        /// The checkpoint (or opening its connection) failed; the next attempt opens a new connection.
        case failed(String)
    }

    private struct State: ~Copyable {
        var connection: SQLiteConnection?
        var lastAttempt = -1
    }

    let path: String
    /// Frames in the log before a checkpoint is due: SQLite's own autocheckpoint default (1000 pages).
    public let threshold: Int
    let frames = WALFrames()
    private let state = Mutex(State())

    public init(path: String, threshold: Int = 1000) {
        self.path = path; self.threshold = threshold
    }

    /// The frames the log held after the last commit (as recorded by the store's WAL hook).
    public var framesInLog: Int { frames.frames }

    /// Checkpoints (PASSIVE) when the log holds at least `threshold` frames and more than at the last
    /// attempt. Runs on the checkpointer's thread only; never blocks the store's connection.
    public func checkpointIfDue() -> Outcome {
        let inLog = frames.frames
        return state.withLock { state -> Outcome in
            guard inLog >= threshold, inLog != state.lastAttempt else { return .idle }
            state.lastAttempt = inLog
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
    /// Stops this connection's automatic checkpoints (they ran inside whichever COMMIT crossed 1000
    /// frames: an fsync of the database file on the committing thread) and records the log's size for
    /// `checkpointer`, whose owner must then call `checkpointIfDue` from another thread.
    public func handCheckpoints(to checkpointer: WALCheckpointer) {
        db.recordWALFrames(into: checkpointer.frames)
    }
}
