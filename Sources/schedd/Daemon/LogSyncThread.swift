import ScheddService
import ScheddSystem

/// The group commit's disk half on a thread of its own (`SyncPipeline`, docs/daemon-parts.md "Log
/// sync"): `beginSync` wakes the thread, which `fdatasync`s the store's write-ahead log and writes one
/// byte to a pipe; the loop reads it (`reportDescriptor`, an sd-event I/O source) and hands the result
/// to the pipeline. While the disk syncs, the loop decodes, checks and commits the next calls. Idle, the
/// thread sleeps on a condition variable: no timer, no wake-up (CONTRACT v3 §9).
///
/// The thread syncs the log through a descriptor of its own: Linux's `fdatasync` writes the file's
/// dirty pages whichever descriptor names it. Before each sync it checks that the path still names the
/// file it holds (SQLite never replaces the log while the store's connection is open; if something
/// did, the thread reopens it), so a sync never covers a stale file.
final class LogSyncThread: SyncPipeline.Device, @unchecked Sendable {
    let path: String
    /// Readable when a sync has returned: one byte per sync (`takeReport`).
    let reportDescriptor: FileDescriptor
    private let reportWriter: FileDescriptor
    private let work = ConditionLock()
    // Guarded by `work`.
    private var requested = false
    private var stopping = false
    private var lastFailure: String?
    /// The log, opened by whichever thread syncs (the sync thread; the loop only in `syncHere`, when the
    /// thread is idle or ended). Guarded by `work` for the swap, used outside it for the sync.
    private var log: FileDescriptor
    private var logIdentity: (device: UInt64, inode: UInt64)
    private var thread: SystemThread?

    /// Opens `path` (the store's log) and the report pipe; nil when either fails (the group commit then
    /// syncs at each COMMIT, on the loop). The thread starts in `start()`.
    init?(logPath path: String) {
        self.path = path
        guard let opened = try? FileDescriptor.open(path, .readOnly),
              let status = try? opened.status() else { return nil }
        guard let ends = try? FileDescriptor.pipe(nonBlocking: true) else { opened.close(); return nil }
        log = opened
        logIdentity = (status.device, status.inode)
        reportDescriptor = ends.read
        reportWriter = ends.write
    }

    /// Starts the thread: after the loop blocked the signals it handles (a thread inherits the mask it
    /// is created with; one made before would take SIGTERM's default action for the whole process).
    /// False when no thread could be made: each sync then runs on the loop, reported the same way.
    func start() -> Bool {
        guard thread == nil else { return true }
        thread = SystemThread.start(name: "schedd-logsync") { [self] in run() }
        return thread != nil
    }

    func beginSync() {
        guard thread != nil else { return report(syncLog()) }
        work.withLock {
            requested = true
            work.signal()
        }
    }

    /// On the loop, when `reportDescriptor` is readable: the finished sync's failure (`.some(nil)`: it
    /// succeeded), or nil when there was nothing to read.
    func takeReport() -> String?? {
        guard let bytes = try? reportDescriptor.read(upTo: 16), !bytes.isEmpty else { return nil }
        return .some(work.withLock { defer { lastFailure = nil }; return lastFailure })
    }

    func syncHere() -> String? { syncLog() }

    /// Ends the thread after the sync under way, if any. Idempotent; the loop only.
    func stop() {
        work.withLock {
            stopping = true
            work.signal()
        }
        thread?.join()
        thread = nil
    }

    private func run() {
        while true {
            let go = work.withLock { () -> Bool in
                while !requested && !stopping { work.wait() }
                requested = false
                return !stopping
            }
            guard go else { return }
            report(syncLog())
        }
    }

    /// Hands a finished sync's result to the loop: `lastFailure`, then one byte on the pipe.
    private func report(_ failure: String?) {
        work.withLock { lastFailure = failure }
        let one: [UInt8] = [1]
        _ = try? reportWriter.writeAll(one)
    }

    /// `fdatasync` of the log, reopening it first if the path no longer names the file held.
    private func syncLog() -> String? {
        if let status = try? FileSystem.status(path), (status.device, status.inode) != logIdentity,
           let reopened = try? FileDescriptor.open(path, .readOnly) {
            let previous = log
            log = reopened
            logIdentity = (status.device, status.inode)
            previous.close()
        }
        do throws(Errno) {
            try log.syncData()
            return nil
        } catch {
            return "fdatasync of \(path): \(error)"
        }
    }
}
