import Glibc
import Scheduler
import ScheddSystem

/// The input of `schedd push`, read in chunks so that memory stays bounded whatever arrives
/// (`schedd push /dev/zero` is one endless line, rejected once it passes the limit).
///
/// Use: `wholeInput()` first (the input when it is at most one push long), then `nextLine()` until
/// nil. At most `PushDecoder.maxPushBytes` + one chunk is buffered at any time.
final class PushInput {
    /// One non-empty line, without its newline and surrounding spaces, tabs and carriage returns.
    enum Line {
        /// The line's bytes (at most `PushDecoder.maxPushBytes`); `number` counts from 1 in the input,
        /// `indent` is how many spaces, tabs and carriage returns before them were dropped.
        case push(number: Int, bytes: [UInt8], indent: Int)
        /// A line longer than `PushDecoder.maxPushBytes`; its bytes were dropped while reading.
        case tooLarge(number: Int)
    }

    private static let chunkSize = 65_536
    private let fd: FileDescriptor
    private let path: String
    /// Bytes read but not consumed: `buffer[position..<end]`. Fixed size: `fill()` is called only
    /// with at most `maxPushBytes` bytes unconsumed, so one more chunk always fits.
    private var buffer = [UInt8](repeating: 0, count: PushDecoder.maxPushBytes + 1 + chunkSize)
    private var position = 0
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0

    /// Opens `path` (`-` is standard input); a missing or unreadable file is rejected (exit 1).
    init(path: String) throws(CommandFailure) {
        self.path = path
        if path == "-" {
            fd = .standardInput
        } else {
            do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw .rejected("cannot open '\(path)': \(error)") }
        }
    }

    deinit { if fd != .standardInput { fd.close() } }

    /// Whether the input is a terminal (standard input not redirected): a person may be waiting on it.
    var isTerminal: Bool { fd == .standardInput && fd.isTerminal }

    /// How the input is named in messages.
    var name: String { path == "-" ? "standard input" : "'\(path)'" }

    /// The whole input when it is at most `limit` bytes long, else nil. Reads at most `limit` + 1
    /// bytes; they stay buffered for `nextLine()`.
    func wholeInput(ifAtMost limit: Int) throws(CommandFailure) -> [UInt8]? {
        precondition(limit <= PushDecoder.maxPushBytes)
        while !atEnd && end - position <= limit { try fill() }
        return end - position <= limit ? Array(buffer[position..<end]) : nil
    }

    /// The bytes read but not yet consumed (after `wholeInput`: the first bytes of the input).
    var buffered: ArraySlice<UInt8> { buffer[position..<end] }

    /// The next non-empty line, or nil at the end of the input. Bytes of a line beyond the limit
    /// are skipped as they arrive, never kept. O(length of the line).
    func nextLine() throws(CommandFailure) -> Line? {
        let limit = PushDecoder.maxPushBytes
        while true {
            lineNumber += 1
            var content: [UInt8] = []
            var indent = 0
            var tooLarge = false
            var ended = false
            while !ended {
                if position == end {
                    if atEnd { break }
                    try fill()
                    continue
                }
                let newline = buffer.withUnsafeBufferPointer { [position, end] b in
                    memchr(b.baseAddress! + position, 0x0A, end - position)
                        .map { UnsafeRawPointer(b.baseAddress!).distance(to: UnsafeRawPointer($0)) }
                }
                let stop = newline ?? end
                var start = position
                position = newline.map { $0 + 1 } ?? end
                ended = newline != nil
                if tooLarge { continue }
                if content.isEmpty { while start < stop, Self.isSpace(buffer[start]) { start += 1; indent += 1 } }
                let room = limit - content.count
                content.append(contentsOf: buffer[start..<min(stop, start + room)])
                // Past the limit only trailing spaces may follow; anything else makes the line too large.
                if stop - start > room, buffer[(start + room)..<stop].contains(where: { !Self.isSpace($0) }) {
                    tooLarge = true
                    content = []
                }
            }
            if tooLarge { return .tooLarge(number: lineNumber) }
            while let last = content.last, Self.isSpace(last) { content.removeLast() }
            if !content.isEmpty { return .push(number: lineNumber, bytes: content, indent: indent) }
            if position == end && atEnd { return nil }
        }
    }

    /// Reads up to one chunk after the unconsumed bytes, moving them to the front first.
    private func fill() throws(CommandFailure) {
        if position > 0 {
            buffer.withUnsafeMutableBytes { [position, end] b in
                _ = memmove(b.baseAddress!, b.baseAddress! + position, end - position)
            }
            end -= position
            position = 0
        }
        let read = buffer.withUnsafeMutableBytes { [end, fd] b in
            Result { () throws(Errno) in try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: b[end..<(end + Self.chunkSize)])) }
        }
        switch read {
        case .success(let n):
            if n == 0 { atEnd = true }
            end += n
        case .failure(let error):
            throw .failure("cannot read \(name): \(error)")
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
}
