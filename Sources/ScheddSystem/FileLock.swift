// An advisory whole-file lock held by the process: `flock(2)` on a file of its own, with the holder's
// description written into it (ftruncate + pwrite) for whoever finds it taken.
import Glibc

/// An exclusive `flock(2)` lock on a file, held as long as its descriptor is open: the kernel drops
/// it when the process ends, however it ends (`kill -9` included), so a dead holder never blocks the
/// next. The descriptor is close-on-exec: no child keeps the lock after its parent is gone.
///
/// The file's contents are the holder's own words about itself (`replaceContents`), read by a
/// process that finds the lock taken (`Attempt.held`). Advisory: only processes that take the lock
/// are kept out.
public struct FileLock: Sendable {
    /// The open file that carries the lock (owned by the lock; `release` closes it).
    public let descriptor: FileDescriptor

    /// What `tryAcquire` found.
    public enum Attempt: Sendable {
        /// The lock is this process's now.
        case acquired(FileLock)
        /// Another open file holds it; `contents` is what its holder wrote (empty if nothing yet).
        case held(contents: [UInt8])
    }

    /// The most bytes of a holder's description read back (it is one line; more is not ours).
    public static let maximumContents = 4096

    /// Opens (creating, mode `permissions`) the file at `path` and takes `LOCK_EX | LOCK_NB` on it;
    /// never waits for another holder. When the lock is taken, reads the holder's contents, giving a
    /// holder that has just locked up to `settleMilliseconds` to write them (it writes right after
    /// locking; an empty file after that is reported as empty). O(size of the file).
    public static func tryAcquire(_ path: String, permissions: UInt32 = 0o600,
                                  settleMilliseconds: Int = 500) throws(Errno) -> Attempt {
        let descriptor = try FileDescriptor.open(path, .readWrite, options: [.create, .noControllingTerminal],
                                                 permissions: permissions)
        do {
            _ = try retryingInterrupts { flock(descriptor.rawValue, LOCK_EX | LOCK_NB) }
            return .acquired(FileLock(descriptor: descriptor))
        } catch Errno.resourceTemporarilyUnavailable {
            defer { descriptor.close() }
            var contents = try read(descriptor)
            var waited = 0
            while contents.isEmpty && waited < settleMilliseconds {
                SystemTime.sleep(milliseconds: 10)
                waited += 10
                contents = try read(descriptor)
            }
            return .held(contents: contents)
        } catch {
            descriptor.close()
            throw error
        }
    }

    /// Replaces the file's contents with `bytes` (`ftruncate` to 0, then `pwrite` at offset 0).
    public func replaceContents(with bytes: [UInt8]) throws(Errno) {
        _ = try retryingInterrupts { ftruncate(descriptor.rawValue, 0) }
        var offset = 0
        while offset < bytes.count {
            offset += try bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) in
                    try retryingInterrupts { pwrite(descriptor.rawValue, raw.baseAddress! + offset, raw.count - offset, off_t(offset)) }
                }
            }.get()
        }
    }

    /// Closes the descriptor, which releases the lock. Only for a holder that stops before its
    /// process ends; the process's end releases it anyway.
    public func release() { descriptor.close() }

    private static func read(_ descriptor: FileDescriptor) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: maximumContents)
        let n = try bytes.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) in try retryingInterrupts { pread(descriptor.rawValue, raw.baseAddress, raw.count, 0) } }
        }.get()
        return Array(bytes[..<n])
    }
}
