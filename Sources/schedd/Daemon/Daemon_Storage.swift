import ScheddClientCore
import SchedCalendar
import Scheduler
import ScheddService

/// Storage failures (CONTRACT §9; `StorageHealth` holds the rules): a failed call answers with the
/// Storage error and the engine's transaction is rolled back, so nothing is half-applied; a failed
/// firing is retried with back-off; the log and the service manager hear the first failure, a summary
/// now and then, and the recovery, which comes by itself with the first write that succeeds again.
extension Daemon {
    /// Members that write to the database: their success proves the storage works again.
    static var writingMembers: Set<String> { SchedulerCall.writingMethods }

    /// The STATUS= of a daemon that serves normally.
    var servingStatus: String { "Serving \(SchedulerNames.service) on \(options.bus)" }

    /// Delivers what is due at `now` (in `mode`) unless a storage failure is being backed off; a
    /// failure starts or lengthens the back-off, a success after failures is the recovery.
    /// The delivery goes in slices (Daemon_Delivery.swift); a failing later slice is reported the same way.
    func deliverDue(now: Instant, mode: AdvanceMode) {
        guard storageHealth.mayFire(at: now) else { return }
        do {
            try startSlicedDelivery(mode: mode)
            storageSucceeded()
        } catch {
            storageFailed("delivering due notifications", error.message, backOff: true)
        }
    }

    /// One bounded maintenance step (retention, page reclaim) when the engine owes one (hourly, or while
    /// a backlog remains); skipped while a storage failure is backed off, reported like any storage failure.
    func maintainWhenIdle(now: Instant) {
        guard storageHealth.mayFire(at: now) else { return }
        do {
            try engine.maintainWhenIdle(now: now)
        } catch {
            storageFailed("maintenance", error.message, backOff: true)
        }
        do {
            try tzdataWatch?.sync(engine.zoneNamesInUse)
        } catch {
            logger.warning("cannot watch a zone file in use for tzdata updates: \(error)")
        }
    }

    /// The files of zones in use changed (a tzdata update): re-resolves what the new rules move, logs it,
    /// and watches zones that came into use since.
    func zoneFilesChanged() {
        do {
            for change in try engine.zoneFilesChanged(now: clock.now) {
                logger.info("the rules of \(change.zone) changed: \(change.moved.count) schedule(s) moved")
                for moved in change.moved.prefix(100) {
                    logger.info("re-resolved after a tzdata update: \(moved.from.rfc3339) -> \(moved.to.rfc3339)",
                                id: moved.id, run: Scheduler.runId(of: moved.id))
                }
            }
            storageSucceeded()
        } catch {
            storageFailed("re-resolving after a tzdata update", error.message, backOff: false)
        }
        settle()
    }

    /// When the due timer should wake for `nextDue`: not before the back-off ends.
    func dueWakeUp(_ nextDue: Instant?) -> Instant? { storageHealth.wakeUp(nextDue: nextDue) }

    /// Records a storage failure of `what`; logs and notifies only what the rate limit lets through.
    func storageFailed(_ what: String, _ message: String, backOff: Bool) {
        report(storageHealth.failed(what, message, now: clock.now, backOff: backOff), error: true)
    }

    /// A write succeeded: ends a failure period (and its back-off) if there was one.
    func storageSucceeded() {
        guard storageHealth.isFailing else { return }
        report(storageHealth.succeeded(now: clock.now, serving: servingStatus), error: false)
    }

    private func report(_ report: StorageHealth.Report, error: Bool) {
        if let line = report.log { error ? logger.error(line) : logger.info(line) }
        if let notify = report.notify { ServiceManager.notify(notify) }
    }
}
