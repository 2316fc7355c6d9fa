import Glibc

/// Writes to the standard streams without Foundation. Each call writes whole lines with one
/// `write(2)` per line, so lines from the daemon's notifier never interleave with log lines.
enum Console {
    /// Writes `text` and a newline to stdout, at once (no buffering: scripts read line by line).
    static func out(_ text: String) { writeAll(1, text + "\n") }
    /// Writes `text` and a newline to stderr.
    static func err(_ text: String) { writeAll(2, text + "\n") }

    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
        bytes.removeAll()
    }
}

/// The environment variable `name`, or nil when unset.
func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
