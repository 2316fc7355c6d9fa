import Glibc

/// The testbed's signals, taken synchronously: they are blocked before the first child starts
/// (so none is lost between a spawn and the wait) and read with `sigtimedwait(2)`.
///
/// Children get them unblocked and at their default action (`ChildProcess`).
enum TestbedSignals {
    /// Signals that end the testbed (forwarded to COMMAND), and SIGCHLD (a child exited).
    static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    static let handled: [Int32] = terminating + [SIGCHLD]

    /// One signal taken from the pending set.
    struct Received {
        var number: Int32
        /// Sent with kill(2) or sigqueue(3) by a process (not by the terminal driver).
        var sentByProcess: Bool
    }

    /// Blocks `handled` in the calling thread (the testbed is single-threaded).
    static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        sigprocmask(SIG_BLOCK, &set, nil)
    }

    /// Takes the next pending signal of `handled`, waiting at most `milliseconds` (nil: forever).
    static func next(milliseconds: Int?) -> Received? {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return take(from: &set, milliseconds: milliseconds)
    }

    /// Waits at most `milliseconds` for a SIGCHLD, consuming it; other signals stay pending.
    static func waitForChild(milliseconds: Int) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        _ = take(from: &set, milliseconds: milliseconds)
    }

    private static func take(from set: inout sigset_t, milliseconds: Int?) -> Received? {
        var info = siginfo_t()
        var number: Int32
        if let milliseconds {
            var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
            number = sigtimedwait(&set, &info, &timeout)
        } else {
            number = sigwaitinfo(&set, &info)
        }
        guard number > 0 else { return nil }
        // SI_USER (kill) and SI_QUEUE (sigqueue) are ≤ 0; the terminal driver's SI_KERNEL is 0x80.
        return Received(number: number, sentByProcess: info.si_code <= 0)
    }
}
