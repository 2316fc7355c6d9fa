import ScheddBus

/// Notices wall-clock changes at once, without polling (ScheddBus's `ClockChangeTimer`: a timerfd with
/// `TFD_TIMER_CANCEL_ON_SET`). Every failure is thrown: a watch that cannot be re-armed would miss the
/// next clock step, which breaks CONTRACT §2, so the daemon treats it as fatal.
final class ClockChangeWatch {
    private let timer: ClockChangeTimer
    var fd: Int32 { timer.fd }

    init() throws(BusError) { timer = try ClockChangeTimer() }

    /// Called when `fd` is readable: true when the wall clock was set since the last call. Re-arms.
    func consumeChange() throws(BusError) -> Bool {
        guard try timer.read() == .clockChanged else { return false }
        try timer.arm()
        return true
    }
}
