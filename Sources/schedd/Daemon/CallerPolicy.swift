import Glibc

/// Who sent a method call: what the daemon's access rule looks at.
struct CallerCredentials: Sendable, Equatable {
    /// The sender's process, when known (for the log).
    var pid: pid_t?
    var euid: uid_t
    /// The effective gid; nil when it could not be read.
    var egid: gid_t?
    /// The supplementary gids; nil when they could not be read.
    var supplementaryGroups: [gid_t]?
}

/// The daemon's own access rule (`--allow-group`, on by default with `--bus system`): a method call
/// is served only when its sender runs as root, as the daemon's own user, or with the allowed group
/// as its effective or a supplementary group. It backs up the D-Bus policy
/// (units/org.schedd.Scheduler1.conf), so a mistake there cannot open the daemon.
///
/// Introspection, Peer and Properties are answered by sd-bus itself and stay open.
struct CallerPolicy: Sendable {
    /// The group name as given, for messages.
    let groupName: String
    let groupID: gid_t
    /// The daemon's effective uid (its own user may always call it).
    let ownUID: uid_t

    /// Resolves `groupName` with getgrnam_r. Throws a message naming the group when it does not exist.
    init(groupName: String, ownUID: uid_t = geteuid()) throws(CommandFailure) {
        guard let gid = Self.lookUpGroup(groupName) else {
            throw .failure("--allow-group: there is no group '\(groupName)' on this machine "
                           + "(create it with 'groupadd \(groupName)', or name another with --allow-group)")
        }
        self.groupName = groupName
        groupID = gid
        self.ownUID = ownUID
    }

    /// Nil when `caller` may call; otherwise the message of the AccessDenied error, naming the rule.
    func denial(for caller: CallerCredentials) -> String? {
        if caller.euid == 0 || caller.euid == ownUID { return nil }
        if caller.egid == groupID || caller.supplementaryGroups?.contains(groupID) == true { return nil }
        let ownClause = ownUID == 0 ? "" : ", not schedd's own user (uid \(ownUID))"
        let denial = "caller uid \(caller.euid) is not root\(ownClause) and not in group '\(groupName)'"
        guard caller.egid != nil, caller.supplementaryGroups != nil else {
            // sd-bus reads groups from /proc/PID/status; hidden (ProtectProc=invisible), nobody is a member.
            return denial + " (its groups cannot be read: /proc/PID/status is hidden from schedd)"
        }
        return denial
    }

    /// The gid of group `name`, or nil when there is no such group. O(size of the group entry).
    static func lookUpGroup(_ name: String) -> gid_t? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var size = max(1024, Int(sysconf(Int32(_SC_GETGR_R_SIZE_MAX))))
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let r = getgrnam_r(name, &entry, &buffer, size, &result)
            if r == ERANGE && size < 1 << 24 {
                size *= 2
                continue
            }
            return r == 0 && result != nil ? entry.gr_gid : nil
        }
    }
}
