// The raw timerfd and inotify calls of schedd live in this file (ARCHITECTURE: one shim for Linux
// syscalls; pidfd_open and procfs reads are ScheddApps' CLinuxProcess). Each returns a Swift value or
// throws a BusError naming what failed.
import CSystemd
import Glibc

/// A `CLOCK_REALTIME` timerfd armed for the end of time with `TFD_TIMER_CANCEL_ON_SET`: its `read()`
/// fails with `ECANCELED` whenever the wall clock is set (`date -s`, NTP steps, resume) — systemd's
/// `time_change_fd()`. It never expires, so it costs no wake-ups.
public final class ClockChangeTimer {
    /// The descriptor to watch for readability.
    public let fd: Int32

    public init() throws(BusError) {
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { throw BusError(operation: "create a clock-change timerfd", errno: Glibc.errno) }
        do { try arm() } catch { close(fd); throw error }
    }

    deinit { close(fd) }

    /// (Re)arms the timer; it must be re-armed after every change it reported.
    public func arm() throws(BusError) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int.max
        if timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil) < 0 {
            throw BusError(operation: "arm the clock-change timerfd", errno: Glibc.errno)
        }
    }

    /// What a readable timerfd says.
    public enum Reading: Equatable, Sendable {
        /// The wall clock was set since the last arm (re-arm now).
        case clockChanged
        /// Nothing happened (spurious wake-up, or the end of time came).
        case nothing
    }

    /// Reads the timerfd. Throws on an unexpected error (the watch is then broken).
    public func read() throws(BusError) -> Reading {
        var expirations: UInt64 = 0
        let n = Glibc.read(fd, &expirations, 8)
        if n == 8 { return .nothing }
        let code = Glibc.errno
        if n < 0 && code == ECANCELED { return .clockChanged }
        if n < 0 && (code == EAGAIN || code == EINTR) { return .nothing }
        throw BusError(operation: "read the clock-change timerfd", errno: n < 0 ? code : EIO)
    }
}

/// An inotify instance watching directories for changes of named files in them.
public final class FileChangeWatch {
    /// The descriptor to watch for readability.
    public let fd: Int32
    private var watched: [(wd: Int32, directory: String, name: String)] = []

    /// A watch of nothing yet.
    public init() throws(BusError) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw BusError(operation: "create an inotify instance", errno: Glibc.errno) }
    }

    deinit { close(fd) }

    /// Watches file `name` in `directory` for being created, replaced (renamed over), written, deleted
    /// or having its attributes changed. Throws when the directory cannot be watched.
    public func watch(directory: String, name: String) throws(BusError) {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        let wd = inotify_add_watch(fd, directory, mask)
        if wd < 0 { throw BusError(operation: "watch \(directory) with inotify", errno: Glibc.errno) }
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
    public func read() throws(BusError) -> Reading {
        var reading = Reading(changed: false, lostDirectories: [], overflowed: false)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let code = Glibc.errno
                if code == EAGAIN || code == EINTR { break }
                throw BusError(operation: "read inotify events", errno: code)
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
