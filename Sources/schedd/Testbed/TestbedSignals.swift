import ScheddSystem

/// The testbed's signals, taken synchronously (ScheddSystem's `Signals`): they are blocked before the
/// first child starts (so none is lost between a spawn and the wait) and read with `sigtimedwait(2)`.
///
/// Children get them unblocked and at their default action (`ChildProcess`).
enum TestbedSignals {
    /// Signals that end the testbed (forwarded to COMMAND), and SIGCHLD (a child exited).
    static let terminating: [Int32] = [SignalNumber.interrupt, SignalNumber.terminate, SignalNumber.hangUp,
                                       SignalNumber.quit]
    static let handled: [Int32] = terminating + [SignalNumber.childStatus]

    /// One signal taken from the pending set.
    typealias Received = Signals.Received

    /// Blocks `handled` in the calling thread (the testbed is single-threaded).
    static func block() { Signals.block(handled) }

    /// Takes the next pending signal of `handled`, waiting at most `milliseconds` (nil: forever).
    static func next(milliseconds: Int?) -> Received? { Signals.take(handled, milliseconds: milliseconds) }

    /// Waits at most `milliseconds` for a SIGCHLD, consuming it; other signals stay pending.
    static func waitForChild(milliseconds: Int) {
        _ = Signals.take([SignalNumber.childStatus], milliseconds: milliseconds)
    }
}
