import Scheduler

extension Delivery {
    /// What the delivery tells the parts around it: given in `Delivery.init`, never changed after (issue 32
    /// item 4: no hook is set on a part after its `init`). Each defaults to nothing (the dispatch fuzzer
    /// and most unit tests need none).
    ///
    /// Order after every change (a commit, a call, a clock move, a timer): `Delivery.settle` delivers what
    /// is due; when no sliced delivery is left under way it runs one idle maintenance step and then
    /// `maintained`, arms its due timer, and then `settled`. In the daemon: a group commit →
    /// `settle` → `maintained` (the tzdata watches re-sync) → the due timer armed → `settled` (the
    /// sliced cancellation goes on, the wake timer is re-armed).
    public struct Events {
        /// After every settle that left no sliced delivery under way, once the due timer is armed: the
        /// daemon's `CancelSlicing.kick` and `WakeArming.rearm`, in that order.
        public let settled: () -> Void
        /// After each idle maintenance step tried, also one that failed (none while a storage failure is
        /// backed off): the daemon re-syncs its tzdata watches with the zones in use (`ChangeWatches.syncTzdata`).
        public let maintained: () -> Void
        /// A failure the notifier reported late, before it is recorded: the daemon logs it.
        public let failedLate: (DueNotification, String) -> Void
        /// A loop source broke (a slice or the due timer the loop refused): the daemon ends, so that the
        /// service manager restarts it. Never returns to a state where due notifications silently wait.
        public let fatal: (String) -> Void

        /// Before each delivery of what is due at the clock's now (`deliverDue`: the due timer's, a settle's,
        /// a clock step's), so that late notifications are worded by their cause: the daemon's
        /// `SleepWatch.tellLateCause`, which reads the clocks for a resume or a step (on the real clock; a
        /// fake clock's methods say it themselves).
        public let delivering: () -> Void

        public init(settled: @escaping () -> Void = {}, maintained: @escaping () -> Void = {},
                    failedLate: @escaping (DueNotification, String) -> Void = { _, _ in },
                    fatal: @escaping (String) -> Void = { _ in }, delivering: @escaping () -> Void = {}) {
            self.settled = settled; self.maintained = maintained; self.failedLate = failedLate; self.fatal = fatal
            self.delivering = delivering
        }
    }
}
