import SystemZones
import SchedCalendar
import ScheddBus
import ScheddSystem

/// Notices tzdata updates: inotify (through the one Linux shim, `FileChangeWatch`) on the directory of
/// every zone file in use — the device zone's and each pinned zone's — since a package update replaces
/// zone files by rename. Zones start being watched as the engine starts using them (`sync`).
final class TzdataWatch {
    private let watch: FileChangeWatch
    private let database: ZoneDatabase
    private var watched = Set<String>()
    var fd: Int32 { watch.fd }

    init(database: ZoneDatabase) throws(BusError) {
        do { watch = try FileChangeWatch() } catch { throw BusError(error) }
        self.database = database
    }

    /// Watches the files of `names` not watched yet (a file that appears later is seen too: the directory is
    /// watched). A name that is no zone file name (a POSIX TZ string) is skipped; a directory that cannot
    /// be watched throws (its updates would go unnoticed).
    func sync(_ names: [String]) throws(BusError) {
        for name in names where !watched.contains(name) {
            guard let path = database.filePath(of: name), let slash = path.lastIndex(of: "/") else { continue }
            do { try watch.watch(directory: String(path[..<slash]), name: String(path[path.index(after: slash)...])) } catch { throw BusError(error) }
            watched.insert(name)
        }
    }

    /// Called when `fd` is readable: true when a watched zone file changed (or events were lost).
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
