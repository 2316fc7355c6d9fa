// Open file descriptors: open/openat, read, write, fstat, poll, pipe, close (each a thin wrapper of the
// C call, errors as `Errno`, EINTR retried in `retryingInterrupts`).
import CLinuxProcess
import Glibc

/// An open file descriptor. A value: it does not close itself; whoever opened it calls `close()` once.
public struct FileDescriptor: Hashable, Sendable, RawRepresentable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// How a file is opened for reading and writing (`O_RDONLY`, `O_WRONLY`, `O_RDWR`).
    public enum AccessMode: Sendable {
        case readOnly, writeOnly, readWrite
        var flags: Int32 { switch self { case .readOnly: O_RDONLY; case .writeOnly: O_WRONLY; case .readWrite: O_RDWR } }
    }

    /// `open(2)` flags besides the access mode. Close-on-exec is always set (no child inherits a
    /// descriptor by accident).
    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_NONBLOCK`.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_DIRECTORY`: fails with `notDirectory` unless the path is a directory.
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NOFOLLOW`: fails with `tooManySymbolicLinkLevels` when the last component is a symbolic link.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_NOCTTY`.
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
        /// `O_CREAT` (with the `permissions` given).
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_APPEND`.
        public static let append = OpenOptions(rawValue: O_APPEND)
        /// `O_TRUNC`.
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_EXCL` (with `create`: fails with `fileExists`).
        public static let exclusive = OpenOptions(rawValue: O_EXCL)
    }

    /// `open(2)` of `path`, close-on-exec.
    public static func open(_ path: String, _ mode: AccessMode, options: OpenOptions = [],
                            permissions: UInt32 = 0o600) throws(Errno) -> FileDescriptor {
        let fd = try retryingInterrupts { Glibc.open(path, mode.flags | options.rawValue | O_CLOEXEC, permissions) }
        return FileDescriptor(rawValue: fd)
    }

    /// `openat(2)`: `path` relative to this descriptor (a directory), close-on-exec.
    public func openAt(_ path: String, _ mode: AccessMode, options: OpenOptions = []) throws(Errno) -> FileDescriptor {
        let fd = try retryingInterrupts { Glibc.openat(rawValue, path, mode.flags | options.rawValue | O_CLOEXEC) }
        return FileDescriptor(rawValue: fd)
    }

    /// `close(2)`. Not retried on EINTR (on Linux the descriptor is gone either way).
    public func close() { _ = Glibc.close(rawValue) }

    /// `read(2)` into `buffer`; returns the byte count (0 at end of file).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// `read(2)` of up to `count` bytes.
    public func read(upTo count: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try read(into: raw) } }.get()
        bytes.removeSubrange(n...)
        return bytes
    }

    /// Reads to the end of the file; nil when it holds more than `limit` bytes. O(size) time and memory.
    public func readAll(limit: Int) throws(Errno) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = try chunk.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try read(into: raw) } }.get()
            if n == 0 { return out }
            out += chunk[..<n]
            if out.count > limit { return nil }
        }
    }

    /// `write(2)` of `bytes` (one call: may write fewer); returns the byte count written.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts { Glibc.write(rawValue, bytes.baseAddress, bytes.count) }
    }

    /// Writes all of `bytes`, looping over short writes.
    public func writeAll(_ bytes: some Sequence<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            offset += try array.withUnsafeBytes { raw in
                Result { () throws(Errno) in try write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }.get()
        }
    }

    /// Whether this descriptor is a terminal (`isatty(3)`): a person typing, not a pipe or a file.
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// `fstat(2)`.
    public func status() throws(Errno) -> FileStatus {
        var info = stat()
        _ = try valueOrErrno(fstat(rawValue, &info))
        return FileStatus(info)
    }

    /// `dup2(2)`: makes `target` refer to this descriptor's file (closing what `target` was).
    public func duplicate(onto target: FileDescriptor) throws(Errno) {
        _ = try retryingInterrupts { dup2(rawValue, target.rawValue) }
    }

    /// `fcntl(F_DUPFD_CLOEXEC)`: a new descriptor (numbered 3 or above, close-on-exec) for this one's
    /// file, owned by the caller.
    public func duplicateCloseOnExec() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try valueOrErrno(fcntl(rawValue, F_DUPFD_CLOEXEC, 3)))
    }

    /// `fsync(2)`.
    public func sync() throws(Errno) { _ = try retryingInterrupts { fsync(rawValue) } }

    /// `fdatasync(2)`: the file's data, and the metadata needed to read it back (its size), on the disk.
    /// Linux syncs the file (the inode), whichever descriptor of it is given.
    public func syncData() throws(Errno) { _ = try retryingInterrupts { fdatasync(rawValue) } }

    /// `fchmod(2)`.
    public func setPermissions(_ permissions: UInt32) throws(Errno) { _ = try valueOrErrno(fchmod(rawValue, permissions)) }

    /// `poll(2)` for readability (or hang-up/error) for up to `milliseconds` (0: just look; -1: forever).
    /// A wait cut short by a signal is retried with the whole timeout.
    public func waitReadable(milliseconds: Int32) throws(Errno) -> Bool {
        var descriptor = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return try retryingInterrupts { Glibc.poll(&descriptor, 1, milliseconds) } > 0
    }

    /// `pipe2(2)` with both ends close-on-exec (`nonBlocking`: `O_NONBLOCK` too).
    public static func pipe(nonBlocking: Bool = false) throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try valueOrErrno(clinux_pipe(&ends, nonBlocking ? 1 : 0))
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Standard input, output and error.
    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)
}

/// What `fstat(2)`/`stat(2)` say about a file.
public struct FileStatus: Hashable, Sendable {
    /// `st_mode` (type and permission bits).
    public var mode: UInt32
    /// `st_size` in bytes.
    public var size: Int
    /// `st_uid`.
    public var owner: UInt32
    /// `st_dev`, `st_ino`: the file's identity.
    public var device: UInt64
    public var inode: UInt64
    /// `st_mtim` in nanoseconds since the epoch.
    public var modificationNanoseconds: Int64

    init(_ info: stat) {
        mode = info.st_mode
        size = Int(info.st_size)
        owner = info.st_uid
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modificationNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// `S_ISREG`.
    public var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    /// `S_ISDIR`.
    public var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    /// The permission bits (`mode & 0o7777`).
    public var permissions: UInt32 { mode & 0o7777 }
}

/// Calls on paths that need no descriptor.
public enum FileSystem {
    /// `stat(2)` (follows symbolic links).
    public static func status(_ path: String) throws(Errno) -> FileStatus {
        var info = stat()
        _ = try valueOrErrno(stat(path, &info))
        return FileStatus(info)
    }

    /// `lstat(2)` (does not follow a final symbolic link).
    public static func linkStatus(_ path: String) throws(Errno) -> FileStatus {
        var info = stat()
        _ = try valueOrErrno(lstat(path, &info))
        return FileStatus(info)
    }

    /// `readlink(2)`: the target of the symbolic link at `path`.
    public static func linkTarget(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = try valueOrErrno(readlink(path, &buffer, buffer.count - 1))
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `mkdir(2)` with `permissions`.
    public static func makeDirectory(_ path: String, permissions: UInt32 = 0o700) throws(Errno) {
        _ = try valueOrErrno(mkdir(path, permissions))
    }

    /// `unlink(2)`.
    public static func remove(_ path: String) throws(Errno) { _ = try valueOrErrno(unlink(path)) }

    /// `rmdir(2)`.
    public static func removeDirectory(_ path: String) throws(Errno) { _ = try valueOrErrno(rmdir(path)) }

    /// `access(2)` with `X_OK`: whether the file can be executed by this process.
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// `statfs(2)`'s `f_type` (the file system's magic number, linux/magic.h).
    public static func fileSystemType(_ path: String) throws(Errno) -> Int {
        try valueOrErrno(clinux_statfs_type(path))
    }

    /// FUSE_SUPER_MAGIC (linux/magic.h): a FUSE file system.
    public static let fuseMagic = 0x6573_5546

    /// The names in directory `path` (`opendir`/`readdir`), `.` and `..` excepted.
    public static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let directory = opendir(path) else { throw Errno.current }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `mkdtemp(3)`: creates a new directory from `template` (ending in `XXXXXX`); returns its path.
    public static func makeTemporaryDirectory(_ template: String) throws(Errno) -> String {
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw Errno.current }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension FileSystem {
    /// `access(2)` with `F_OK`: whether something exists at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

extension FileSystem {
    /// `access(2)` with `R_OK`: whether this process may read the file at `path`.
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
}
