import Glibc
import Scheduler

// The integrity check after an unclean shutdown, on a thread of its own so that READY=1 and every call
// are not held up by it (docs/store.md "What is checked when").
extension Daemon {
    /// Starts `SQLiteScheduleStore.integrityCheck` on a detached thread when the previous run did not close
    /// the database; its verdict is logged (an error naming each damaged table, or a line saying it passed).
    func checkIntegrityIfUnclean() {
        guard store.openedAfterUncleanShutdown else { return }
        let path = options.databasePath
        logger.info("the previous run did not close \(path); checking it in the background")
        let job = IntegrityCheckJob(path: path)
        if let thread = startDaemonThread({ job.run() }) { thread.detach() } else { logger.warning("cannot start the integrity check") }
    }
}

/// What the check thread owns: the path, and its own logger.
private final class IntegrityCheckJob: Sendable {
    let path: String
    init(path: String) { self.path = path }

    func run() {
        let logger = Logger()
        let problems = SQLiteScheduleStore.integrityCheck(path: path) { sched_yield() }
        if problems.isEmpty {
            logger.info("integrity check of \(path): ok")
        } else {
            for line in problems.prefix(20) { logger.error("integrity check of \(path): \(line)") }
            logger.error("\(path) is damaged (\(problems.count) problems); stop schedd and run 'schedd check --db \(path)'")
        }
    }
}
