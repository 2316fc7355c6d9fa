import ScheddSystem

/// Notices tzdata updates: inotify (through the one Linux shim, `FileChangeWatch`) on the directory of
/// every zone file in use — the device zone's and each pinned zone's — since a package update replaces
/// zone files by rename. Zones start being watched as the engine starts using them (`sync`).
public final class TzdataWatch {
    private let watch: FileChangeWatch
    private let database: ZoneDatabase
    private var watched = Set<String>()
    public var fd: Int32 { watch.fd }

    public init(database: ZoneDatabase) throws(SystemCallError) {
        watch = try FileChangeWatch()
        self.database = database
    }

    /// Watches the files of `names` not watched yet (a file that appears later is seen too: the directory is
    /// watched). A name that is no zone file name (a POSIX TZ string) is skipped; a directory that cannot
    /// be watched throws (its updates would go unnoticed).
    public func sync(_ names: [String]) throws(SystemCallError) {
        for name in names where !watched.contains(name) {
            guard let path = database.filePath(of: name), let slash = path.lastIndex(of: "/") else { continue }
            try watch.watch(directory: String(path[..<slash]), name: String(path[path.index(after: slash)...]))
            watched.insert(name)
        }
    }

    /// Called when `fd` is readable: true when a watched zone file changed (or events were lost).
    public func consumeChange() throws(SystemCallError) -> Bool {
        let reading = try watch.read()
        if let lost = reading.lostDirectories.first {
            throw SystemCallError("watch \(lost) with inotify (the directory is no longer watched)", .noSuchFileOrDirectory)
        }
        return reading.changed || reading.overflowed
    }
}
