import CSystemd
import Glibc

/// Notices device-zone changes: inotify on the directory of `/etc/localtime` (the link is replaced,
/// not written, by `timedatectl` and `ln -sf`) and, when `TZ` names a zone file, on that file's
/// directory (a tzdata update replaces it). Several events read at once count as one change.
final class ZoneChangeWatch {
    let fd: Int32
    /// (watch descriptor, file name in that directory) pairs that matter.
    private var watched: [(wd: Int32, name: String)] = []

    /// Watches the files at `paths` (absolute).
    init(paths: [String]) throws(SystemFailure) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw SystemFailure(errno: errno, "cannot create an inotify instance") }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        for path in paths {
            guard let slash = path.lastIndex(of: "/") else { continue }
            let directory = slash == path.startIndex ? "/" : String(path[..<slash])
            let name = String(path[path.index(after: slash)...])
            let wd = inotify_add_watch(fd, directory, mask)
            if wd >= 0 { watched.append((wd, name)) }
        }
    }

    deinit { close(fd) }

    /// Called when `fd` is readable: true when any event concerned a watched file.
    func consumeChange() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, length) = buffer.withUnsafeBytes { raw -> (Int32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<min(nameStart + length, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if watched.contains(where: { $0.wd == wd && $0.name == name }) { changed = true }
                offset = nameStart + length
            }
        }
        return changed
    }
}
