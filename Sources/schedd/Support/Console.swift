import ScheddSystem

/// Writes to the standard streams without Foundation. Each call writes whole lines with one
/// `write(2)` per line (ScheddSystem's `FileDescriptor.writeAll`), so lines from the daemon's notifier
/// never interleave with log lines.
enum Console {
    /// Writes `text` and a newline to stdout, at once (no buffering: scripts read line by line).
    static func out(_ text: String) { writeAll(1, text + "\n") }
    /// Writes `text` and a newline to stderr.
    static func err(_ text: String) { writeAll(2, text + "\n") }

    /// Writes all of `text` to `fd`; a failed write (a closed pipe) drops the rest.
    static func writeAll(_ fd: Int32, _ text: String) {
        try? FileDescriptor(rawValue: fd).writeAll(text.utf8)
    }
}

/// Stdout lines collected and written with one write(2) at `flush`: a PushBatch's answers at once,
/// not one system call per line (a bulk load's CLI spent ~8% of its CPU in them). Whatever goes to
/// stderr through `err` writes the collected lines first, so the two streams on one terminal or file
/// (`2>&1`) keep the order the lines were made in. Lines stay whole.
struct StdoutLines {
    private var text = ""

    mutating func out(_ line: String) {
        text += line
        text += "\n"
    }

    mutating func err(_ line: String) {
        flush()
        Console.err(line)
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        Console.writeAll(1, text)
        text = ""
    }
}

/// The environment variable `name`, or nil when unset.
func environment(_ name: String) -> String? { CurrentProcess.environment(name) }
