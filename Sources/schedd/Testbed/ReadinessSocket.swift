import ScheddSystem

/// The testbed's stand-in for systemd's `NOTIFY_SOCKET`: a datagram socket the daemon's
/// `sd_notify` writes `READY=1` to (schedd run is `Type=notify`). The socket is ScheddSystem's.
final class ReadinessSocket {
    private let socket: UnixDatagramSocket
    var path: String { socket.path }

    /// Binds a datagram socket at `path` (at most 107 bytes: the `sun_path` limit).
    init(path: String) throws(CommandFailure) {
        guard path.utf8.count <= UnixDatagramSocket.maxPathBytes else {
            throw .failure("testbed: the socket path '\(path)' is too long (set TMPDIR to a shorter directory)")
        }
        do { socket = try UnixDatagramSocket(bindingTo: path) } catch {
            throw .failure("testbed: cannot bind '\(path)': \(error.errno)")
        }
    }

    /// Waits up to `milliseconds` for a datagram; returns whether one of its lines is `READY=1`.
    func readyArrived(within milliseconds: Int32) -> Bool {
        guard let datagram = socket.receive(within: milliseconds) else { return false }
        return datagram.split(separator: UInt8(ascii: "\n")).contains { $0.elementsEqual("READY=1".utf8) }
    }
}
