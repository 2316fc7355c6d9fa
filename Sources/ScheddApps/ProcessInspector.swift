import ScheddSystem

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
/// by making itself unreadable. Exceptions:
/// - a FUSE root, which Flatpak never uses (a toolbox container): no `.flatpak-info`;
/// - `EACCES`/`EPERM` for a caller of *another* user (`callerUID` ≠ the daemon's euid, the daemon not
///   root): the kernel does not let one user look into another's processes. This happens only to a
///   system-bus daemon running as its own user; the caller is served but counts as **sandboxed**
///   (`ProcessFacts.sandboxUnreadable`, CONTRACT §8 v3): it may be a Flatpak app, so it acts only as
///   the app of its unit (or the default app) and never for every app (docs/apps.md). A root caller is
///   the exception: it is above every boundary schedd keeps, so it counts as unsandboxed.
public enum ProcessInspector {
    /// Blocking: a few small reads from procfs (microseconds).
    public static func facts(pid: Int32, pidfd givenPidfd: Int32? = nil, callerUID: UInt32? = nil,
                             procRoot: String = "/proc",
                             stillConnected: (() -> Bool)? = nil) throws(CallerIdentityError) -> ProcessFacts {
        guard pid > 0 else { throw CallerIdentityError(.unattributable, "the bus did not report the caller's process id") }
        let process: ProcessDescriptor
        var ownPidfd = false
        if let givenPidfd, givenPidfd >= 0 {
            process = ProcessDescriptor(borrowing: FileDescriptor(rawValue: givenPidfd))
        } else {
            do { process = try ProcessDescriptor.open(pid: pid) } catch {
                throw failure("cannot pin the caller's process \(pid)", error)
            }
            ownPidfd = true
        }
        defer { if ownPidfd { process.close() } }

        let ownUID = CurrentProcess.effectiveUserID
        let foreign = callerUID.map { $0 != ownUID && ownUID != 0 } ?? false
        var unreadable = false
        let flatpakInfo = try readFlatpakInfo(rootPath: "\(procRoot)/\(pid)/root", pid: pid, foreignUser: foreign,
                                              unreadable: &unreadable)
        // Root is above every boundary schedd keeps (it could read every file itself): a root caller
        // whose root a daemon of its own user cannot open is not held to a sandbox.
        if callerUID == 0 { unreadable = false }
        let cgroup = readSmallFile("\(procRoot)/\(pid)/cgroup", limit: 64 * 1024).map { String(decoding: $0, as: UTF8.self) }
        let startedAt = readSmallFile("\(procRoot)/\(pid)/stat", limit: 4096).flatMap(ProcessPin.startTime(statLine:))

        if process.hasExited {
            throw CallerIdentityError(.unattributable, "the caller's process \(pid) exited while it was being identified")
        }
        if let stillConnected, !stillConnected() {
            throw CallerIdentityError(.unattributable, "the caller left the bus while it was being identified")
        }
        var facts = ProcessFacts(flatpakInfo: flatpakInfo, cgroup: cgroup, startedAt: startedAt)
        facts.sandboxUnreadable = unreadable
        return facts
    }

    /// The caller's `.flatpak-info`; nil when it has none. `unreadable` is set when the root of another
    /// user's process could not be opened (nil is returned: the caller counts as sandboxed).
    static func readFlatpakInfo(rootPath: String, pid: Int32, foreignUser: Bool,
                                unreadable: inout Bool) throws(CallerIdentityError) -> [UInt8]? {
        let root: FileDescriptor
        do {
            root = try FileDescriptor.open(rootPath, .readOnly, options: [.nonBlocking, .directory, .noControllingTerminal])
        } catch {
            if error == .permissionDenied, (try? FileSystem.fileSystemType(rootPath)) == FileSystem.fuseMagic { return nil }
            if (error == .permissionDenied || error == .notPermitted) && foreignUser {
                unreadable = true
                return nil
            }
            throw failure("cannot open the root of the caller's process \(pid)", error)
        }
        defer { root.close() }
        let fd: FileDescriptor
        do {
            fd = try root.openAt(".flatpak-info", .readOnly, options: [.noControllingTerminal, .noFollow, .nonBlocking])
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw failure("cannot open the caller's /.flatpak-info", error)
        }
        defer { fd.close() }
        let info: FileStatus
        do { info = try fd.status() } catch { throw failure("cannot stat the caller's /.flatpak-info", error) }
        guard info.isRegularFile else {
            throw CallerIdentityError(.unattributable, "the caller's /.flatpak-info is not a regular file")
        }
        guard info.size <= KeyFile.maxBytes else {
            throw CallerIdentityError(.unattributable, "the caller's /.flatpak-info is larger than \(KeyFile.maxBytes) bytes")
        }
        let bytes: [UInt8]?
        do { bytes = try fd.readAll(limit: KeyFile.maxBytes) } catch {
            throw failure("cannot read the caller's /.flatpak-info", error)
        }
        guard let bytes else {
            throw CallerIdentityError(.unattributable, "the caller's /.flatpak-info is larger than \(KeyFile.maxBytes) bytes")
        }
        return bytes
    }

    /// Reads a whole file of at most `limit` bytes; nil when it cannot be opened or read, or is larger.
    public static func readSmallFile(_ path: String, limit: Int) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.noControllingTerminal, .nonBlocking]) else {
            return nil
        }
        defer { fd.close() }
        return (try? fd.readAll(limit: limit)) ?? nil
    }

    private static func failure(_ what: String, _ code: Errno) -> CallerIdentityError {
        CallerIdentityError(.unattributable, "\(what): \(code)")
    }
}
