import ScheddBus
import ScheddSystem

/// Notices device-zone changes: inotify on the directory of `/etc/localtime` (the link is replaced,
/// not written, by `timedatectl` and `ln -sf`) and, when `TZ` names a zone file, on that file's
/// directory (a tzdata update replaces it). Several events read at once count as one change.
///
/// Failures are thrown, never swallowed: a directory that cannot be watched (at start, or later because
/// it was deleted or unmounted) means zone changes would go unnoticed (CONTRACT §2).
final class ZoneChangeWatch {
    private let watch: FileChangeWatch
    var fd: Int32 { watch.fd }

    /// Watches the files at `paths` (absolute).
    init(paths: [String]) throws(BusError) {
        do { watch = try FileChangeWatch() } catch { throw BusError(error) }
        for path in paths {
            guard let slash = path.lastIndex(of: "/") else { continue }
            let directory = slash == path.startIndex ? "/" : String(path[..<slash])
            do { try watch.watch(directory: directory, name: String(path[path.index(after: slash)...])) } catch { throw BusError(error) }
        }
    }

    /// Called when `fd` is readable: true when any event concerned a watched file (or events were lost).
    func consumeChange() throws(BusError) -> Bool {
        let reading: FileChangeWatch.Reading
        do { reading = try watch.read() } catch { throw BusError(error) }
        if let lost = reading.lostDirectories.first {
            throw BusError(operation: "watch \(lost) with inotify", message: "the directory is no longer watched",
                           errno: 2)  // ENOENT
        }
        return reading.changed || reading.overflowed
    }
}
