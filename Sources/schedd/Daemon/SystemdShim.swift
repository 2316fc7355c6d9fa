// sd_notify and sd_journal calls of schedd.
import CSystemd
import Glibc

/// Tells the service manager about the daemon's state (`sd_notify`); a no-op without NOTIFY_SOCKET.
enum ServiceManager {
    static func notify(_ state: String) { _ = sd_notify(0, state) }
}

/// Whether stderr is connected to the journal: `JOURNAL_STREAM` (`DEVICE:INODE`) names stderr's file.
func stderrIsJournal() -> Bool {
    guard let value = environment("JOURNAL_STREAM") else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var info = stat()
    guard fstat(2, &info) == 0 else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
}

/// Sends one structured journal entry (`sd_journal_sendv`): `fields` are `NAME=value` strings.
func journalSend(_ fields: [String]) {
    let copies = fields.map { strdup($0)! }
    defer { for p in copies { free(p) } }
    var vectors = copies.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
    _ = vectors.withUnsafeMutableBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
}
