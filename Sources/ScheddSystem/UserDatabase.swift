// The user and group databases through NSS (`getgrnam_r`, `getpwuid_r`, `getgrouplist`): files, LDAP,
// systemd-userdb — whatever /etc/nsswitch.conf names. Lookups may block on the network.
import Glibc

/// Reads of the passwd and group databases.
public enum UserDatabase {
    /// The gid of group `name`, or nil when there is no such group. O(size of the group entry).
    public static func groupID(named name: String) -> UInt32? {
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

    /// The groups of `uid` per the group database: its primary gid (passwd) and every group listing its
    /// user name (`getgrouplist`). Nil when the uid has no passwd entry.
    public static func groups(ofUser uid: UInt32) -> [UInt32]? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var size = max(1024, Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))))
        var buffer: [CChar]
        while true {
            buffer = [CChar](repeating: 0, count: size)
            let r = getpwuid_r(uid, &entry, &buffer, size, &result)
            if r == ERANGE && size < 1 << 24 { size *= 2; continue }
            guard r == 0, result != nil, let name = entry.pw_name else { return nil }
            let primary = entry.pw_gid
            var count: Int32 = 64
            while true {
                var groups = [gid_t](repeating: 0, count: Int(count))
                var n = count
                if getgrouplist(name, primary, &groups, &n) >= 0 { return Array(groups.prefix(Int(n))) }
                if n <= count || count > 1 << 16 { return [primary] }
                count = n
            }
        }
    }
}
