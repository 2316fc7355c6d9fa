import ScheddSystem

/// Notices device-zone changes: inotify on the directory of `/etc/localtime` (the link is replaced,
/// not written, by `timedatectl` and `ln -sf`) and, when `TZ` names a zone file, on that file's
/// directory (a tzdata update replaces it). Several events read at once count as one change.
///
/// Failures are thrown, never swallowed: a directory that cannot be watched (at start, or later because
/// it was deleted or unmounted) means zone changes would go unnoticed (CONTRACT §2).
public final class ZoneChangeWatch {
    private let watch: FileChangeWatch
    public var fd: Int32 { watch.fd }

    /// Watches the files at `paths` (absolute).
    public init(paths: [String]) throws(SystemCallError) {
        watch = try FileChangeWatch()
        for path in paths {
            guard let slash = path.lastIndex(of: "/") else { continue }
            let directory = slash == path.startIndex ? "/" : String(path[..<slash])
            try watch.watch(directory: directory, name: String(path[path.index(after: slash)...]))
        }
    }

    /// Called when `fd` is readable: true when any event concerned a watched file (or events were lost).
    public func consumeChange() throws(SystemCallError) -> Bool {
        let reading = try watch.read()
        if let lost = reading.lostDirectories.first {
            throw SystemCallError("watch \(lost) with inotify (the directory is no longer watched)", .noSuchFileOrDirectory)
        }
        return reading.changed || reading.overflowed
    }
}
