import Glibc

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`).
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Runs `body` once and returns the elapsed nanoseconds.
func measureNanos(_ body: () -> Void) -> UInt64 {
    let start = monotonicNanos()
    body()
    return monotonicNanos() - start
}

/// Prints the machine-readable comparison line: `RESULT name ours=… baseline=… ratio=baseline/ours`.
/// For "higher is better" units (ops/s) pass `higherIsBetter: true` and the ratio is ours/baseline.
func printResult(_ name: String, ours: Double, baseline: Double, unit: String, higherIsBetter: Bool = false) {
    let ratio = higherIsBetter ? ours / baseline : baseline / ours
    print("RESULT \(name) ours=\(format(ours))\(unit) baseline=\(format(baseline))\(unit) ratio=\(format(ratio))")
}

/// A number with at most 3 decimals, no exponent.
func format(_ v: Double) -> String {
    if v.isNaN || v.isInfinite { return "\(v)" }
    let scaled = (v * 1000).rounded() / 1000
    var s = String(scaled)
    if s.hasSuffix(".0") { s.removeLast(2) }
    return s
}

/// Resident set size of this process in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var size = 0, resident = 0
    withUnsafeMutablePointer(to: &size) { sp in
        withUnsafeMutablePointer(to: &resident) { rp in
            _ = withVaList([sp, rp]) { vfscanf(f, "%ld %ld", $0) }
        }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// User and system CPU seconds of this process so far.
func cpuUsage() -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}
