#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The only place the Calendar module touches the file system: reads zone files and symlinks.
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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw .missing }
            throw .unreadable(errorText(e))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .unreadable(errorText(errno)) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unreadable("not a regular file") }
        guard Int(st.st_size) <= maxFileSize else { throw .unreadable("larger than \(maxFileSize) bytes") }
        var result = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while result.count <= maxFileSize {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errorText(errno))
            }
            if n == 0 { return result }
            result += chunk[0..<n]
        }
        throw .unreadable("larger than \(maxFileSize) bytes")
    }

    /// The target of the symlink at `path`, or nil when it is not a symlink (or does not exist).
    static func symlinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count - 1) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether something exists at `path` (following symlinks).
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// The value of environment variable `name`.
    static func environment(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }

    static func errorText(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "error \(code)" }
        return String(cString: p)
    }
}

/// `read(2)`, under a name that the `ZoneFileReader.read` method does not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
