import Glibc

/// The testbed's stand-in for systemd's `NOTIFY_SOCKET`: a datagram socket the daemon's
/// `sd_notify` writes `READY=1` to (schedd run is `Type=notify`).
final class ReadinessSocket {
    let path: String
    private let fd: Int32

    /// Binds a datagram socket at `path` (at most 107 bytes: the `sun_path` limit).
    init(path: String) throws(CommandFailure) {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw .failure("testbed: the socket path '\(path)' is too long (set TMPDIR to a shorter directory)")
        }
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .failure("testbed: socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .failure("testbed: cannot bind '\(path)': \(reason)")
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Waits up to `milliseconds` for a datagram; returns whether one of its lines is `READY=1`.
    func readyArrived(within milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&descriptor, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard n > 0 else { return false }
        return buffer[0..<n].split(separator: UInt8(ascii: "\n")).contains { $0.elementsEqual("READY=1".utf8) }
    }
}
