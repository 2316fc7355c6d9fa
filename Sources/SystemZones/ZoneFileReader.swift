// The only place the system zone database touches the file system (through ScheddSystem): zone files,
// symlinks, and the environment variables that locate them (TZ, TZDIR).
import ScheddSystem

enum ZoneFileReader {
    /// Zone files are a few KiB; anything above this is not one (and is not read into memory).
    static let maxFileSize = 1 << 20

    enum Failure: Error {
        /// No such file (ENOENT/ENOTDIR).
        case missing
        /// Any other failure, with a reason for the message.
        case unreadable(String)
    }

    /// The bytes of the regular file at `path`.
    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch {
            if error == .noSuchFileOrDirectory || error == .notDirectory { throw .missing }
            throw .unreadable(error.description)
        }
        defer { fd.close() }
        do {
            let status = try fd.status()
            guard status.isRegularFile else { throw Failure.unreadable("not a regular file") }
            guard status.size <= maxFileSize, let bytes = try fd.readAll(limit: maxFileSize) else {
                throw Failure.unreadable("larger than \(maxFileSize) bytes")
            }
            return bytes
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .unreadable("\(error)")
        }
    }

    /// The target of the symlink at `path`, or nil when it is not a symlink (or does not exist).
    static func symlinkTarget(_ path: String) -> String? {
        guard let target = try? FileSystem.linkTarget(path), !target.isEmpty else { return nil }
        return target
    }

    /// Whether something exists at `path` (following symlinks).
    static func exists(_ path: String) -> Bool { (try? FileSystem.status(path)) != nil }

    /// The value of environment variable `name`.
    static func environment(_ name: String) -> String? { CurrentProcess.environment(name) }
}
