// A bound AF_UNIX datagram socket (`socket`, `bind`, `recv`): what systemd's NOTIFY_SOCKET is.
import Glibc

/// An `AF_UNIX` `SOCK_DGRAM` socket bound at a path, close-on-exec. Closing it removes the path.
public final class UnixDatagramSocket {
    public let path: String
    public let descriptor: FileDescriptor

    /// The longest path `sun_path` holds (107 bytes and a NUL on Linux).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Binds a new socket at `path`. Throws `fileNameTooLong` for a path over `maxPathBytes`.
    public init(bindingTo path: String) throws(SystemCallError) {
        guard path.utf8.count <= Self.maxPathBytes else { throw SystemCallError("bind '\(path)'", .fileNameTooLong) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemCallError("socket", .current) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = Errno.current
            Glibc.close(fd)
            throw SystemCallError("bind '\(path)'", code)
        }
        self.path = path
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit {
        descriptor.close()
        unlink(path)
    }

    /// Waits up to `milliseconds` for a datagram and returns it (at most `maxBytes`); nil when none came.
    public func receive(within milliseconds: Int32, maxBytes: Int = 4096) -> [UInt8]? {
        guard (try? descriptor.waitReadable(milliseconds: milliseconds)) == true else { return nil }
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        let n = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) in
                try retryingInterrupts { recv(descriptor.rawValue, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
            }
        }
        guard case .success(let count) = n, count > 0 else { return nil }
        return Array(buffer[..<count])
    }
}
