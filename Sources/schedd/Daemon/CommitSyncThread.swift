import Glibc
import ScheddSystem
import ScheddBus
import ScheddService
import Scheduler
import Synchronization

/// The group commit's syncs on a thread of their own (docs/daemon-parts.md "Commit syncs"): the loop
/// commits a group without the fsync (`Engine.group(syncedLater:)`) and goes on taking calls while
/// this thread runs `fdatasync` on the write-ahead log; the thread then wakes the loop (a pipe watched
/// by sd-event), which answers the group. So the loop's CPU and the disk's flush overlap: the
/// calls that arrive during one sync are the next group.
final class CommitSyncThread: CommitSyncer {
    private let shared: Shared
    private var thread: pthread_t?

    /// What the loop and the thread share: the log's descriptor, the request and its result, two pipes.
    private final class Shared: Sendable {
        struct State: Sendable {
            /// The sequence of the sync asked for and not yet started.
            var requested: UInt64?
            /// The last sync done: its sequence and failure, until the loop takes it.
            var done: (sequence: UInt64, failure: StoreError?)?
            var stopping = false
        }
        let log: WALSync
        let state = Mutex(State())
        /// Loop → thread: a sync is asked for (or the thread should stop).
        let wake: (read: FileDescriptor, write: FileDescriptor)
        /// Thread → loop: a sync is done (the read end non-blocking, drained by the loop).
        let finished: (read: FileDescriptor, write: FileDescriptor)

        init(log: WALSync, wake: (read: FileDescriptor, write: FileDescriptor),
             finished: (read: FileDescriptor, write: FileDescriptor)) {
            self.log = log; self.wake = wake; self.finished = finished
        }
        deinit { for fd in [wake.read, wake.write, finished.read, finished.write] { fd.close() } }

        func run() {
            while true {
                // One request at a time, so at most two bytes wait (a request and a stop).
                var bytes: (UInt64, UInt64) = (0, 0)
                guard read(wake.read.rawValue, &bytes, 16) > 0 || errno == EINTR else { return }
                let (sequence, stop) = state.withLock { state in
                    defer { state.requested = nil }
                    return (state.requested, state.stopping)
                }
                if stop { return }
                guard let sequence else { continue }
                var failure: StoreError?
                do throws(StoreError) { try log.sync() } catch { failure = error }
                state.withLock { $0.done = (sequence, failure) }
                Self.post(finished.write)
            }
        }

        static func post(_ fd: FileDescriptor) {
            var one: UInt8 = 1
            _ = write(fd.rawValue, &one, 1)
        }
    }

    /// Opens `store`'s log, starts the thread and watches its reports on `loop`, handing each to
    /// `report` (on the loop thread). Throws when the log cannot be opened or the thread not started.
    init(store: SQLiteScheduleStore, loop: EventLoop,
         report: @escaping (_ sequence: UInt64, _ failure: StoreError?) -> Void) throws(CommandFailure) {
        let log: WALSync
        do { log = try WALSync(store: store) } catch { throw .failure(error.message) }
        let wake: (read: FileDescriptor, write: FileDescriptor)
        let finished: (read: FileDescriptor, write: FileDescriptor)
        do throws(Errno) {
            wake = try FileDescriptor.pipe()
            do throws(Errno) { finished = try FileDescriptor.pipe(nonBlocking: true) } catch {
                wake.read.close(); wake.write.close()
                throw error
            }
        } catch {
            throw .failure("cannot create the commit sync thread's pipes: \(error)")
        }
        shared = Shared(log: log, wake: wake, finished: finished)
        let shared = shared
        do {
            try loop.addReadable(fd: finished.read.rawValue) {
                var bytes: (UInt64, UInt64) = (0, 0)
                _ = read(finished.read.rawValue, &bytes, 16)
                if let done = shared.state.withLock({ state in defer { state.done = nil }; return state.done }) {
                    report(done.sequence, done.failure)
                }
            }
        } catch {
            throw .failure("cannot watch the commit sync thread: \(error)")
        }
        guard let created = startDaemonThread({ shared.run() }) else {
            throw .failure("cannot start the commit sync thread")
        }
        thread = created
    }

    func startSync(_ sequence: UInt64) {
        shared.state.withLock { $0.requested = sequence }
        Shared.post(shared.wake.write)
    }

    func syncNow() -> StoreError? {
        do throws(StoreError) { try shared.log.sync() } catch { return error }
        return nil
    }

    /// Ends the thread after the sync under way, if any. Idempotent.
    func stop() {
        shared.state.withLock { $0.stopping = true }
        Shared.post(shared.wake.write)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }
}
