import Glibc
import ScheddApps
import ScheddBus
import ScheddSystem

/// Pinning a connection to its process (docs/apps.md "Identity"), as xdg-desktop-portal does: never
/// decide from a PID alone. Every step is asynchronous; the loop never waits on the bus.
///
/// 1. `GetConnectionCredentials(sender)`: uid, PID and, where the bus offers it, `ProcessFD`.
/// 2. With `ProcessFD` (the bus's pidfd, taken when the peer connected): the facts are read through
///    /proc/PID while that pidfd's process is alive and is PID. The process is the one that connected.
/// 3. Without it (dbus-daemon 1.14): `pidfd_open(PID)`, the facts read, then the credentials asked
///    again, and the call accepted only when the answer names the same PID and uid, the pidfd's process
///    is still alive, and it started no later than the connection appeared on the bus (its
///    NameOwnerChanged; else the first call seen). A process that took a recycled PID over started after
///    the original had exited, hence after the connection was made: it is refused. What remains (the
///    limit of dbus-daemon 1.14, docs/apps.md): a connection whose original process handed the socket
///    on and exited *before* its Hello, its PID recycled within that unauthenticated window.
/// Any failure refuses the call (AccessDenied): a sandbox claim that cannot be pinned is never treated
/// as unsandboxed.
extension Identity {
    /// Timeouts of `GetConnectionCredentials` retried before the call is refused (each waits 5 s).
    static let credentialRetries = 12

    func pin(_ sender: String, _ done: @escaping (Result<Pinned, CallerIdentityError>) -> Void) {
        if waiting[sender] != nil {
            waiting[sender]!.append(done)
            return
        }
        waiting[sender] = [done]
        let firstCall = ProcessPin.bootTimeMicroseconds()
        query(sender) { [weak self] first in
            guard let self else { return }
            switch first {
            case .failure(let error): finish(sender, .failure(error))
            case .success(let creds): pinProcess(sender, creds, firstCall: firstCall)
            }
        }
    }

    private func pinProcess(_ sender: String, _ creds: BusPeerCredentials, firstCall: UInt64) {
        guard let uid = creds.uid, let pid = creds.pid, pid > 0 else {
            if let fd = creds.pidfd { FileDescriptor(rawValue: fd).close() }
            return finish(sender, .failure(CallerIdentityError(.unattributable, "the bus did not report the caller's uid and process id")))
        }
        if let busPidfd = creds.pidfd {
            let process = ProcessDescriptor(borrowing: FileDescriptor(rawValue: busPidfd))
            defer { process.close() }
            do throws(CallerIdentityError) {
                guard process.pid.map({ $0 == pid }) ?? true else {
                    throw CallerIdentityError(.unattributable, "the caller's process \(pid) exited; its connection is not trusted")
                }
                let facts = try ProcessInspector.facts(pid: pid, pidfd: busPidfd, callerUID: uid)
                finish(sender, .success(Pinned(uid: uid, pid: pid, facts: facts, method: .processFD)))
            } catch {
                finish(sender, .failure(error))
            }
            return
        }
        let pidfd: ProcessDescriptor
        let facts: ProcessFacts
        do throws(CallerIdentityError) {
            pidfd = try ProcessPin.open(pid: pid)
            do { facts = try ProcessInspector.facts(pid: pid, pidfd: pidfd.descriptor.rawValue, callerUID: uid) } catch {
                pidfd.close()
                throw error
            }
        } catch {
            return finish(sender, .failure(error))
        }
        query(sender) { [weak self] second in
            defer { pidfd.close() }
            guard let self else { return }
            switch second {
            case .failure(let error): finish(sender, .failure(error))
            case .success(let again):
                if let fd = again.pidfd { FileDescriptor(rawValue: fd).close() }
                let bound = appeared[sender] ?? firstCall
                if again.pid != pid || again.uid != uid {
                    finish(sender, .failure(CallerIdentityError(.unattributable, "the bus changed its answer for the caller "
                                                                + "(pid \(pid) → \(again.pid.map(String.init) ?? "none"))")))
                } else if pidfd.hasExited {
                    finish(sender, .failure(CallerIdentityError(.unattributable, "the caller's process \(pid) exited while it "
                                                                + "was being identified")))
                } else if let started = facts.startedAt, started > bound {
                    finish(sender, .failure(CallerIdentityError(.unattributable, "process \(pid) started after the caller's "
                                                                + "connection appeared: its PID was reused, so it is not the caller")))
                } else if facts.startedAt == nil {
                    finish(sender, .failure(CallerIdentityError(.unattributable, "cannot read when process \(pid) started")))
                } else {
                    finish(sender, .success(Pinned(uid: uid, pid: pid, facts: facts, method: .pidfdRequery)))
                }
            }
        }
    }

    /// A bus timeout is retried (up to `credentialRetries` more times): the bus driver answers at once, so
    /// a timeout means this loop was busy past the call's 5 s — the answer is waiting in the socket, and
    /// sd-bus expires the call before reading it. A busy daemon delays the caller; it never refuses it
    /// (CONTRACT §8 "Fair service", issue 31 item 4).
    private func query(_ sender: String, retries: Int = Identity.credentialRetries,
                       _ completion: @escaping (Result<BusPeerCredentials, CallerIdentityError>) -> Void) {
        do {
            try bus.peerCredentials(of: sender) { [weak self] result in
                if case .failure(let error) = result, error.errno == ETIMEDOUT, retries > 0, let self {
                    return query(sender, retries: retries - 1, completion)
                }
                completion(result.mapError { error in
                    CallerIdentityError(.unattributable, "cannot verify the caller (\(error.detail)), so no app can be attributed")
                })
            }
        } catch {
            completion(.failure(CallerIdentityError(.unattributable, "cannot ask the bus who is calling: \(error)")))
        }
    }

    private func finish(_ sender: String, _ result: Result<Pinned, CallerIdentityError>) {
        if case .success(let facts) = result { remember(sender, facts) }
        let calls = waiting.removeValue(forKey: sender) ?? []
        for call in calls { call(result) }
    }
}
