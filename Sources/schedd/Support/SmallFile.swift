import Glibc

/// The text of a small file (at most `limit` bytes read), or nil when it cannot be opened. For hints
/// read on an error path (the zone names of `tzdata.zi`), never for data the CLI relies on.
func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while bytes.count < limit {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}
