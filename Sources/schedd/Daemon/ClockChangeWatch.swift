import ScheddBus
import ScheddSystem

/// Notices wall-clock changes at once, without polling (ScheddSystem's `ClockChangeTimer`: a timerfd with
/// `TFD_TIMER_CANCEL_ON_SET`). Every failure is thrown: a watch that cannot be re-armed would miss the
/// next clock step, which breaks CONTRACT §2, so the daemon treats it as fatal.
final class ClockChangeWatch {
    private let timer: ClockChangeTimer
    var fd: Int32 { timer.fd }

    init() throws(BusError) {
        do { timer = try ClockChangeTimer() } catch { throw BusError(error) }
    }

    /// Called when `fd` is readable: true when the wall clock was set since the last call. Re-arms.
    func consumeChange() throws(BusError) -> Bool {
        do {
            guard try timer.read() == .clockChanged else { return false }
            try timer.arm()
            return true
        } catch {
            throw BusError(error)
        }
    }
}
