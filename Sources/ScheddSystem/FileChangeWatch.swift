// An inotify instance (`inotify_init1`/`inotify_add_watch`) watching named files in directories.
import CLinuxProcess
import Glibc

/// An inotify instance watching directories for changes of named files in them.
public final class FileChangeWatch {
    /// The descriptor to watch for readability.
    public let fd: Int32
    private var watched: [(wd: Int32, directory: String, name: String)] = []

    /// A watch of nothing yet.
    public init() throws(SystemCallError) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw SystemCallError("create an inotify instance", .current) }
    }

    deinit { Glibc.close(fd) }

    /// Watches file `name` in `directory` for being created, replaced (renamed over), written, deleted
    /// or having its attributes changed. Throws when the directory cannot be watched.
    public func watch(directory: String, name: String) throws(SystemCallError) {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        let wd = inotify_add_watch(fd, directory, mask)
        if wd < 0 { throw SystemCallError("watch \(directory) with inotify", .current) }
        watched.append((wd, directory, name))
    }

    /// What the queued events say.
    public struct Reading: Equatable, Sendable {
        /// A watched file changed.
        public var changed: Bool
        /// Directories that are no longer watched (deleted, unmounted: `IN_IGNORED`); changes there are
        /// no longer seen.
        public var lostDirectories: [String]
        /// The kernel dropped events (`IN_Q_OVERFLOW`): anything may have changed.
        public var overflowed: Bool
    }

    /// Drains the queued events. Throws on a read error other than "nothing queued".
    public func read() throws(SystemCallError) -> Reading {
        var reading = Reading(changed: false, lostDirectories: [], overflowed: false)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { raw in
                    Result { () throws(Errno) in try FileDescriptor(rawValue: fd).read(into: raw) }
                }.get()
            } catch .resourceTemporarilyUnavailable {
                break
            } catch {
                throw SystemCallError("read inotify events", error)
            }
            if n == 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { reading.overflowed = true }
                if mask & UInt32(IN_IGNORED) != 0, let index = watched.firstIndex(where: { $0.wd == wd }) {
                    reading.lostDirectories.append(watched[index].directory)
                    watched.remove(at: index)
                }
                if watched.contains(where: { $0.wd == wd && $0.name == name }) { reading.changed = true }
                offset = nameStart + length
            }
        }
        return reading
    }
}
