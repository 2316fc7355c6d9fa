import ScheddSystem

/// The text of a small file (at most `limit` bytes read), or nil when it cannot be opened. For hints
/// read on an error path (the zone names of `tzdata.zi`), never for data the CLI relies on.
func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
    guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
    defer { fd.close() }
    var bytes: [UInt8] = []
    while bytes.count < limit {
        guard let chunk = try? fd.read(upTo: 65_536), !chunk.isEmpty else { break }
        bytes += chunk
    }
    return String(decoding: bytes, as: UTF8.self)
}
