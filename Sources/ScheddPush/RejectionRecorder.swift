import ScheddBus
import Scheduler

/// The rejected messages of each registration (a body that does not decrypt, or is not a valid push),
/// recorded on its row — `rejected` and `lastRejection` in List — at most once per `intervalMicroseconds`
/// per app.
///
/// Why: anyone who holds an app's endpoint URL can make the push server deliver garbage through the
/// user's distributor, and each rejection recorded at once was a write and a sync on the loop. Now the
/// first rejection of an app is written at once; the ones that follow within the interval are counted
/// here and written together, in one transaction, when the interval has passed (the loop timer), at the
/// daemon's stop (`flush`), or before the registration is removed (`forget`). List and the Register reply
/// add what is held (`merged`), so what they show is exact at every moment. A kill -9 loses at most one
/// interval of counts: diagnostics, never a push (a rejected message changes nothing else).
///
/// A write that fails (a full disk) is reported to the daemon's storage health (`storage.failed`), and a
/// write that succeeds to it too (`storage.succeeded`), like every other write of the daemon: so
/// `systemctl status schedd` says storage is failing while these writes fail, and the recovery after.
/// The storage health owns the log line of the failure and of the recovery (its rate limit, one for all
/// storage failures); this type logs neither. It keeps its own back-off (`RejectionFlushRetry`), which
/// decides only when the held rejections are tried again.
///
/// Loop thread only. O(1) per rejection; a flush is O(apps held) and one transaction.
final class RejectionRecorder {
    static let intervalMicroseconds: UInt64 = 1_000_000

    private let store: SQLiteScheduleStore
    private let loop: EventLoop
    private let log: (PushConnector.PushLogLevel, String) -> Void
    /// The daemon's storage health: told of every write, failed or not.
    private let storage: PushConnector.StorageHooks
    /// Per app: rejections not written yet, and the last of them.
    private var held: [String: (count: Int64, last: PushRejection)] = [:]
    /// Per app: when its rejections were last written (monotonic µs).
    private var lastWritten: [String: UInt64] = [:]
    /// Fires when the held rejections are due to be written; nil before `start`.
    private var timer: EventTimer?
    /// When the timer is armed for (monotonic µs); nil when it is not.
    private var armedAt: UInt64?
    /// The back-off of failed flushes.
    private var retry = RejectionFlushRetry()

    /// `log`: where the timer's own failure goes (a storage failure goes to `storage` instead).
    init(store: SQLiteScheduleStore, loop: EventLoop, log: @escaping (PushConnector.PushLogLevel, String) -> Void,
         storage: PushConnector.StorageHooks) {
        self.store = store
        self.loop = loop
        self.log = log
        self.storage = storage
    }

    /// Makes the loop timer (the connector's `start`).
    func start() throws(BusError) {
        timer = try loop.addTimer(clock: .monotonic) { [weak self] in self?.flush() }
    }

    /// Records `rejection` for `app`: written now when the app's last write is an interval old (with any
    /// held before it), else held for the timer. Throws only when the write now fails.
    func record(app: String, _ rejection: PushRejection) throws(PushConnectorError) {
        let now = loop.now(.monotonic)
        let count = (held[app]?.count ?? 0) + 1
        if let last = lastWritten[app], now &- last < Self.intervalMicroseconds {
            held[app] = (count, rejection)
            arm(at: last &+ Self.intervalMicroseconds)
            return
        }
        try fromStore(writing: "recording a rejected push of \(app)", reportingTo: storage) { () throws(StoreError) in
            try store.registrations.recordRejection(app: app, rejection, count: count)
        }
        // Only once written: a failed write keeps what was held (the failing message is not acknowledged,
        // and the distributor delivers it again).
        held[app] = nil
        lastWritten[app] = now
        // The store writes again: other apps' held rejections need not wait out a failed flush's back-off.
        if retry.failures > 0 && !held.isEmpty { arm(at: now &+ Self.intervalMicroseconds) }
    }

    /// `record` with what is held for its app added: what List shows.
    func merged(_ record: PushRegistrationRecord) -> PushRegistrationRecord {
        guard let pending = held[record.app] else { return record }
        var merged = record
        merged.rejected += pending.count
        merged.lastRejection = pending.last
        return merged
    }

    /// Writes everything held, in one transaction (the timer, the daemon's stop).
    func flush() {
        armedAt = nil
        guard !held.isEmpty else { return }
        let now = loop.now(.monotonic)
        let writing = held
        do throws(StoreError) {
            try store.transaction { () throws(StoreError) in
                for (app, pending) in writing {
                    try store.registrations.recordRejection(app: app, pending.last, count: pending.count)
                }
            }
            held = [:]
            for app in writing.keys { lastWritten[app] = now }
            retry.succeeded()
            storage.succeeded()
        } catch {
            // Kept, and tried again after a back-off: the counts are not lost to a passing failure, and a
            // full disk does not make the daemon write every second. The storage health logs it (rate-limited).
            let retryAt = retry.failed(now: now)
            storage.failed("recording the held rejected pushes of \(writing.count) app(s) (kept in memory; "
                           + "next attempt in \((retryAt &- now) / 1_000_000) s)", error)
            arm(at: retryAt)
        }
    }

    /// Drops what is held for `app` (its registration is being removed, and its counts with it).
    func forget(app: String) {
        held[app] = nil
        lastWritten[app] = nil
    }

    /// Arms the timer at `microseconds` unless it is armed for earlier (a flush writes every app held).
    private func arm(at microseconds: UInt64) {
        if let armedAt, armedAt <= microseconds { return }
        armedAt = microseconds
        do { try timer?.arm(atMicroseconds: microseconds) } catch {
            log(.error, "cannot arm the rejection timer: \(error)")
        }
    }
}
