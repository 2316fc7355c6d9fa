import ScheddSystem

/// Starts `body` on a new thread of the daemon's (the integrity check, the checkpoints, the batch
/// decoder): the one place the daemon creates a thread (through ScheddSystem's `SystemThread`). Returns
/// the thread, to be joined or detached by the caller, or nil when none could be created (then `body`
/// is released without running).
func startDaemonThread(_ body: @escaping @Sendable () -> Void) -> SystemThread? {
    SystemThread.start(body)
}
