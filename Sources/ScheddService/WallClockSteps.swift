/// Whether the wall clock was stepped between two looks at the clocks (CONTRACT §11 "No flood": the
/// words of a folded summary). CLOCK_REALTIME − CLOCK_BOOTTIME stays put while the machine runs and while
/// it sleeps (both clocks count the suspended time); a step (`date -s`, NTP stepping, the fake
/// `clock set` aside) moves it by the step. NTP's slewing moves it too, by at most 500 ppm, so a change
/// counts as a step only beyond `toleranceMicroseconds` plus 0.1 % of the boot time elapsed since the last
/// look (twice the slew bound).
///
/// Why: the daemon may deliver after a wall-clock step before the step's own watch tells it (a due-timer
/// wake and the watch become ready at once; a settle after a commit may come first). A delivery that finds
/// late notifications is worded as a clock jump only when the clock jumped, not after a storage back-off
/// or a stopped daemon (`SleepWatch.tellLateCause`).
///
/// A pure value: the readings are passed in (µs). O(1) per look.
public struct WallClockSteps: Sendable {
    /// A change of the offset up to this (plus the slew allowance) is not a step: 1 s.
    public static let toleranceMicroseconds: Int64 = 1_000_000

    /// CLOCK_REALTIME − CLOCK_BOOTTIME at the last look.
    private var offset: Int64
    /// CLOCK_BOOTTIME at the last look.
    private var boottime: Int64

    public init(realtime: Int64, boottime: Int64) {
        offset = realtime &- boottime
        self.boottime = boottime
    }

    /// Looks at the clocks now: whether the wall clock was stepped since the last look (either way).
    /// The readings become the next look's reference.
    public mutating func stepped(realtime: Int64, boottime: Int64) -> Bool {
        let newOffset = realtime &- boottime
        let elapsed = max(0, boottime &- self.boottime)
        let moved = newOffset &- offset
        offset = newOffset
        self.boottime = boottime
        return moved.magnitude > UInt64(Self.toleranceMicroseconds &+ elapsed / 1000)
    }
}
