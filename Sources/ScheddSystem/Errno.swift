// The error of every Linux call in ScheddSystem: an errno value with spelled-out names (swift-system's
// `Errno`), and the one place EINTR is retried (`retryingInterrupts`).
import Glibc

/// An errno value (positive). Names are spelled out; the C name is in each doc comment. Matches in
/// `catch` patterns: `catch Errno.noSuchFileOrDirectory`.
public struct Errno: Error, Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` right now.
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `ESRCH`.
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    /// `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EIO`.
    public static let ioError = Errno(rawValue: EIO)
    /// `EBADF`.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `ECHILD`.
    public static let noChildProcess = Errno(rawValue: ECHILD)
    /// `EAGAIN` (= `EWOULDBLOCK`).
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    /// `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ENOTDIR`.
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `EINVAL`.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ERANGE`.
    public static let outOfRange = Errno(rawValue: ERANGE)
    /// `ENAMETOOLONG`.
    public static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `ELOOP` (also what `O_NOFOLLOW` reports for a symbolic link).
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// `ECANCELED`.
    public static let canceled = Errno(rawValue: ECANCELED)
    /// `ENOSYS`.
    public static let notImplemented = Errno(rawValue: ENOSYS)

    /// `strerror(3)`'s text ("No such file or directory").
    public var description: String { String(cString: strerror(rawValue)) }

    /// Lets `catch Errno.noSuchFileOrDirectory` match a thrown `Errno`.
    public static func ~= (pattern: Errno, error: any Error) -> Bool { (error as? Errno) == pattern }
}

/// A failed Linux call and what was being attempted: "read the clock-change timerfd: Interrupted system call".
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was attempted, in words ("create an inotify instance").
    public var operation: String
    /// The cause.
    public var errno: Errno

    public init(_ operation: String, _ errno: Errno) { self.operation = operation; self.errno = errno }

    public var description: String { "\(operation): \(errno)" }
}

/// Runs `call` (a C call returning -1 with `errno` set on failure) again as long as it fails with EINTR;
/// returns its result, or throws the errno of any other failure. The only place EINTR is retried.
@inline(__always)
func retryingInterrupts<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = Errno.current
        if code != .interrupted { throw code }
    }
}

/// Throws the current errno when `result` is -1 (a call that is not retried: `close`, `*_create`).
@inline(__always)
func valueOrErrno<Result: FixedWidthInteger>(_ result: Result) throws(Errno) -> Result {
    if result == -1 { throw Errno.current }
    return result
}
