import ScheddSystem
import ScheddBus
import ScheddService

/// The daemon's own access rule (`--allow-group`, on by default with `--bus system`): a method call
/// is served only when its sender runs as root, as the daemon's own user, or as a user that the group
/// database makes a member of the allowed group (its primary group in passwd, or listed in the group
/// entry: `getgrouplist`). It backs up the D-Bus policy (units/org.schedd.Scheduler1.conf), so a
/// mistake there cannot open the daemon.
///
/// Only data a caller cannot race is used (CONTRACT §9 "Access"): the uid comes from the bus driver
/// (`SO_PEERCRED`, see `BusPeerCredentials`), the groups from the group database for that uid — never from
/// /proc/PID/status (`SD_BUS_CREDS_AUGMENT`), which a caller can swap by exiting and having its PID
/// reused. Consequence: groups a process merely carries (`setpriv --groups`, `newgrp`) do not count;
/// the user must be a member in the group database.
///
/// Introspection, Peer and Properties are answered by sd-bus itself and stay open.
struct CallerPolicy: Sendable {
    /// The group name as given, for messages.
    let groupName: String
    let groupID: UInt32
    /// The daemon's effective uid (its own user may always call it).
    let ownUID: UInt32

    /// Resolves `groupName` with getgrnam_r. Throws a message naming the group when it does not exist.
    init(groupName: String, ownUID: UInt32 = CurrentProcess.effectiveUserID) throws(CommandFailure) {
        guard let gid = Self.lookUpGroup(groupName) else {
            throw .failure("--allow-group: there is no group '\(groupName)' on this machine "
                           + "(create it with 'groupadd \(groupName)', or name another with --allow-group)")
        }
        self.groupName = groupName
        groupID = gid
        self.ownUID = ownUID
    }

    /// Nil when a caller with effective uid `euid` and group-database groups `groups` (nil: the uid has
    /// no passwd entry) may call; otherwise the message of the AccessDenied error, naming the rule.
    func denial(euid: UInt32, groups: [UInt32]?) -> String? {
        if euid == 0 || euid == ownUID { return nil }
        if groups?.contains(groupID) == true { return nil }
        let ownClause = ownUID == 0 ? "" : ", not schedd's own user (uid \(ownUID))"
        let denial = "caller uid \(euid) is not root\(ownClause) and not in group '\(groupName)'"
        return groups == nil ? denial + " (uid \(euid) has no entry in the user database)" : denial
    }

    /// The gid of group `name` (ScheddSystem's `UserDatabase`), or nil when there is no such group.
    static func lookUpGroup(_ name: String) -> UInt32? { UserDatabase.groupID(named: name) }
}

/// The groups of each uid per the group database (`getpwuid_r` + `getgrouplist`), cached per uid for
/// `lifetimeSeconds` (60 s: a user added to the group is served within a minute, without a lookup —
/// which may go to NSS/LDAP — on every call). Loop thread only.
final class GroupMembership {
    static let lifetimeSeconds: Int = 60
    private var cache: [UInt32: (groups: [UInt32]?, until: Int)] = [:]

    /// The uid's groups (its primary gid included); nil when the uid has no passwd entry.
    func groups(of uid: UInt32, now: Int = SystemTime.realtimeSeconds) -> [UInt32]? {
        if let hit = cache[uid], hit.until > now { return hit.groups }
        let groups = Self.lookUp(uid)
        if cache.count > 4096 { cache.removeAll() }  // bound: one entry per distinct caller uid
        cache[uid] = (groups, now + Self.lifetimeSeconds)
        return groups
    }

    static func lookUp(_ uid: UInt32) -> [UInt32]? { UserDatabase.groups(ofUser: uid) }
}

/// Logs refusals rate-limited (systemd's `log_ratelimit_*`), one `RateLimit` per caller uid: the first
/// refusal of a uid in each 10 s is logged in full, the rest only counted and summed up in that uid's
/// next logged line. At most 4,096 uids are tracked (the table is forgotten past that).
struct RateLimitedLog {
    /// One full line per uid and per 10 s.
    static let intervalSeconds: Int64 = 10
    private var limits: [UInt32: RateLimit] = [:]

    /// Returns the line to log for a refusal of `uid`, or nil when it is to be counted only.
    mutating func line(for uid: UInt32, _ message: String, now: Int = SystemTime.realtimeSeconds) -> String? {
        if limits[uid] == nil {
            if limits.count >= 4096 { limits.removeAll() }
            limits[uid] = RateLimit(intervalMicroseconds: Self.intervalSeconds * 1_000_000, burst: 1)
        }
        guard let suppressed = limits[uid]?.admit(now: Int64(now) * 1_000_000) else { return nil }
        return suppressed == 0 ? message : message + " (\(suppressed) more refusals not logged)"
    }
}
