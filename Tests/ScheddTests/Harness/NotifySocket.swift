import Glibc

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: collects `READY=1`, `STOPPING=1`…
final class NotifySocket {
    let path: String
    private let fd: Int32
    /// Every assignment received so far, in order (`READY=1`, `STATUS=…`).
    private(set) var received: [String] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSetupError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { throw TestSetupError("bind \(path): \(errno)") }
    }

    deinit { close(fd); unlink(path) }

    /// Waits until an assignment equal to `line` arrives, reading datagrams for at most
    /// `deadlineSeconds`; returns whether it came. (A deadline to stop waiting, not a timing assertion.)
    /// `unless` is checked between reads: true gives up at once (the daemon exited).
    /// Reads every datagram already queued, without waiting. A test that lets the daemon send
    /// `WATCHDOG=1` must drain regularly: the kernel queues at most `net.unix.max_dgram_qlen` (10 here)
    /// unread datagrams, and then the daemon's next `sd_notify` blocks (systemd always reads at once).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { return }
            received += String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    func wait(for line: String, deadlineSeconds: Double = 20, unless giveUp: () -> Bool = { false }) -> Bool {
        if received.contains(line) { return true }
        var remaining = Int32(deadlineSeconds * 1000)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while remaining > 0, !giveUp() {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let start = monotonicMilliseconds()
            if poll(&descriptor, 1, min(remaining, 100)) > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    received += String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").map(String.init)
                    if received.contains(line) { return true }
                }
            }
            remaining -= Int32(monotonicMilliseconds() - start)
        }
        return false
    }
}

func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}
