import Glibc
import CLinuxProcess

/// Reads the identity facts of a calling process from the kernel: `/proc/PID/root/.flatpak-info` and
/// `/proc/PID/cgroup`, pinned to the process with a pidfd (as xdg-desktop-portal does).
///
/// The PID must come from the bus (the daemon's `GetConnectionCredentials` / SO_PEERCRED), never from
/// the caller. Sequence, and why:
/// 1. a pidfd for the PID (given by the bus, else `pidfd_open`): it refers to that process for good;
/// 2. `/proc/PID/root` opened as a directory, then `.flatpak-info` opened *relative to it* with
///    `O_NOFOLLOW` — a symlink planted there cannot point the daemon at a file of its own root — and
///    checked to be a regular file of at most `KeyFile.maxBytes`;
/// 3. `/proc/PID/cgroup` read;
/// 4. the pidfd polled: if the process has exited meanwhile, its PID may already name another
///    process and what was read may be that one's, so the call is refused.
/// `stillConnected` (when given) is asked last: the caller's bus connection must still exist, so the
/// PID the bus reported was not recycled between the credentials query and step 1.
///
/// A root that cannot be opened is an error, not "unsandboxed": a caller must not escape its sandbox
/// by making itself unreadable. Exceptions, treated as having no `.flatpak-info`:
/// - a FUSE root, which Flatpak never uses (a toolbox container);
/// - `EACCES`/`EPERM` for a caller of *another* user (`callerUID` ≠ the daemon's euid, the daemon not
///   root): the kernel does not let one user look into another's processes. This happens only to a
///   system-bus daemon running as its own user, whose callers are checked by `--allow-group` instead;
///   the session daemon runs as its callers' user and always sees their sandbox (docs/apps.md).
public enum ProcessInspector {
    /// Blocking: a few small reads from procfs (microseconds).
    public static func facts(pid: Int32, pidfd givenPidfd: Int32? = nil, callerUID: UInt32? = nil,
                             procRoot: String = "/proc",
                             stillConnected: (() -> Bool)? = nil) throws(CallerIdentityError) -> ProcessFacts {
        guard pid > 0 else { throw CallerIdentityError(.unattributable, "the bus did not report the caller's process id") }
        let pidfd: Int32
        var ownPidfd = false
        if let givenPidfd, givenPidfd >= 0 {
            pidfd = givenPidfd
        } else {
            pidfd = pidfd_open(pid, 0)
            guard pidfd >= 0 else { throw failure("cannot pin the caller's process \(pid)", errno) }
            ownPidfd = true
        }
        defer { if ownPidfd { close(pidfd) } }

        let foreign = callerUID.map { $0 != geteuid() && geteuid() != 0 } ?? false
        let flatpakInfo = try readFlatpakInfo(rootPath: "\(procRoot)/\(pid)/root", pid: pid, foreignUser: foreign)
        let cgroup = readSmallFile("\(procRoot)/\(pid)/cgroup", limit: 64 * 1024).map { String(decoding: $0, as: UTF8.self) }
        let startedAt = readSmallFile("\(procRoot)/\(pid)/stat", limit: 4096).flatMap(ProcessPin.startTime(statLine:))

        var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, 0)
        if ready != 0 {
            throw CallerIdentityError(.unattributable, "the caller's process \(pid) exited while it was being identified")
        }
        if let stillConnected, !stillConnected() {
            throw CallerIdentityError(.unattributable, "the caller left the bus while it was being identified")
        }
        return ProcessFacts(flatpakInfo: flatpakInfo, cgroup: cgroup, startedAt: startedAt)
    }

    /// FUSE_SUPER_MAGIC (linux/magic.h): a FUSE file system.
    static let fuseMagic = 0x6573_5546

    static func readFlatpakInfo(rootPath: String, pid: Int32, foreignUser: Bool) throws(CallerIdentityError) -> [UInt8]? {
        let root = open(rootPath, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
        guard root >= 0 else {
            let code = errno
            if code == EACCES, clinux_statfs_type(rootPath) == fuseMagic { return nil }
            if (code == EACCES || code == EPERM) && foreignUser { return nil }
            throw failure("cannot open the root of the caller's process \(pid)", code)
        }
        defer { close(root) }
        let fd = openat(root, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("cannot open the caller's /.flatpak-info", code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot stat the caller's /.flatpak-info", errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CallerIdentityError(.unattributable, "the caller's /.flatpak-info is not a regular file")
        }
        guard info.st_size <= KeyFile.maxBytes else {
            throw CallerIdentityError(.unattributable, "the caller's /.flatpak-info is larger than \(KeyFile.maxBytes) bytes")
        }
        guard let bytes = readAll(fd, limit: KeyFile.maxBytes) else {
            throw failure("cannot read the caller's /.flatpak-info", errno)
        }
        return bytes
    }

    /// Reads a whole file of at most `limit` bytes; nil when it cannot be opened or read, or is larger.
    public static func readSmallFile(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    private static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return out }
            out += chunk[..<n]
            if out.count > limit { return nil }
        }
    }

    private static func failure(_ what: String, _ code: Int32) -> CallerIdentityError {
        CallerIdentityError(.unattributable, "\(what): \(String(cString: strerror(code)))")
    }
}
