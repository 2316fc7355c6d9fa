// Signals taken synchronously (`sigprocmask`, `sigtimedwait`, `sigwaitinfo`): for a single-threaded
// process that blocks its signals and reads them when it is ready.
import Glibc

/// Blocking and taking signals of this thread.
public enum Signals {
    /// One signal taken from the pending set.
    public struct Received: Sendable, Hashable {
        public var number: Int32
        /// Sent with kill(2) or sigqueue(3) by a process (`si_code` SI_USER/SI_QUEUE), not by the
        /// terminal driver (SI_KERNEL).
        public var sentByProcess: Bool
    }

    /// `sigprocmask(SIG_BLOCK, signals)`: they stay pending until taken.
    public static func block(_ signals: [Int32]) {
        var set = makeSet(signals)
        sigprocmask(SIG_BLOCK, &set, nil)
    }

    /// Takes the next pending signal of `signals`, waiting at most `milliseconds` (nil: forever). Nil
    /// when none came in time (or the wait was interrupted by a signal not in the set).
    public static func take(_ signals: [Int32], milliseconds: Int?) -> Received? {
        var set = makeSet(signals)
        var info = siginfo_t()
        let number: Int32
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

    private static func makeSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}

extension SignalNumber {
    /// `SIGQUIT`.
    public static let quit = SIGQUIT
}
