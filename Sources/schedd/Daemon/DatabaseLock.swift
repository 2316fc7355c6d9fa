import ScheddBus
import ScheddSystem

/// One daemon per database (CONTRACT v3 §9): `schedd run` takes an exclusive `flock(2)` on
/// `DATABASE.lock`, beside the database, before it opens the database or owns a bus name, and holds it
/// until the process ends. A second daemon on the same database — a `schedd run` by hand beside the
/// user service, one on another bus, a kiosk's system and user instance given one `--db` — finds it
/// taken and refuses to start (exit status 1) with the holder's PID and bus, read from the file, so
/// that no notification is ever shown on the wrong bus.
///
/// The kernel drops the lock with the process, however it ends: a daemon killed with `kill -9` never
/// blocks the next one, and no stale file has to be cleaned up (the file stays; only the lock counts).
/// Example: the file of a daemon serving a private bus reads
/// `pid 4242\nbus the bus at unix:path=/tmp/dbus-X,guid=…\n`.
struct DatabaseLock {
    /// The lock file of the database at `databasePath`.
    static func path(forDatabase databasePath: String) -> String { databasePath + ".lock" }

    let lock: FileLock
    let path: String

    /// Takes the lock of the database at `databasePath` for a daemon serving `bus`, or fails with the
    /// message a person reads: who holds it, and what to do.
    init(databasePath: String, bus: BusTarget) throws(CommandFailure) {
        path = Self.path(forDatabase: databasePath)
        let attempt: FileLock.Attempt
        do {
            attempt = try FileLock.tryAcquire(path)
        } catch {
            throw .failure("cannot lock the database '\(databasePath)' (\(path)): \(error)")
        }
        switch attempt {
        case .acquired(let lock):
            self.lock = lock
            let text = "pid \(CurrentProcess.id)\nbus \(bus)\n"
            do { try lock.replaceContents(with: Array(text.utf8)) } catch {
                lock.release()
                throw .failure("cannot write the lock file '\(path)' of the database '\(databasePath)': \(error)")
            }
        case .held(let contents):
            // Exit status 1 (CONTRACT v3 §9), not 3: the start is refused, nothing failed.
            throw CommandFailure(.rejected, Self.refusal(database: databasePath, lockPath: path, holder: String(decoding: contents, as: UTF8.self)))
        }
    }

    /// "another schedd (PID 4242) serving the bus at unix:path=… holds the database '…'; …".
    static func refusal(database: String, lockPath: String, holder: String) -> String {
        var pid: String?, bus: String?
        for line in holder.split(separator: "\n") {
            if line.hasPrefix("pid ") { pid = String(line.dropFirst(4)) }
            if line.hasPrefix("bus ") { bus = String(line.dropFirst(4)) }
        }
        let who = "another schedd (PID \(pid ?? "unknown")) serving \(bus ?? "an unknown bus")"
        return "\(who) holds the database '\(database)' (its lock \(lockPath)): one daemon per database, "
            + "so this one does not start; stop that one first, or give this one another --db"
    }
}
