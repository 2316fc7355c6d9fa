// The system zone database as the engine's, the parser's and the decoder's `ZoneResolver`, with the
// tzdata release it was built from.
import SchedCalendar

extension ZoneDatabase: ZoneResolver {
    public func flush() { cache.withLock { $0.removeAll() } }

    /// The release named by `tzdata.zi` (`# version 2026a`) or `+VERSION` in `directory`, else nil.
    public var tzdataVersion: String? {
        for file in ["tzdata.zi", "+VERSION"] {
            guard let bytes = try? ZoneFileReader.read(directory + "/" + file) else { continue }
            let head = String(decoding: bytes.prefix(200), as: UTF8.self)
            guard let line = head.split(separator: "\n").first else { continue }
            let text = line.hasPrefix("# version ") ? line.dropFirst("# version ".count) : line
            let version = text.trimmingCharacters(in: " \t\r")
            if !version.isEmpty, version.utf8.count <= 32 { return version }
        }
        return nil
    }

    /// The zone file path of `name` (for watching it), or nil when the name is not a plain zone name.
    public func filePath(of name: String) -> String? {
        ZoneDatabase.nameProblem(name) == nil ? directory + "/" + name : nil
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
