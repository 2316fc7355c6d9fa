// sd_notify and sd_journal calls of schedd.
import CSystemd
import Glibc
import ScheddSystem

/// Tells the service manager about the daemon's state (`sd_notify`); a no-op without NOTIFY_SOCKET.
enum ServiceManager {
    static func notify(_ state: String) { _ = sd_notify(0, state) }
}

/// Whether stderr is connected to the journal: `JOURNAL_STREAM` (`DEVICE:INODE`) names stderr's file.
func stderrIsJournal() -> Bool {
    guard let value = environment("JOURNAL_STREAM") else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    guard let info = try? FileDescriptor.standardError.status() else { return false }
    return info.device == device && info.inode == inode
}

/// Sends one structured journal entry (`sd_journal_sendv`): `fields` are `NAME=value` strings.
func journalSend(_ fields: [String]) {
    let copies = fields.map { strdup($0)! }
    defer { for p in copies { free(p) } }
    var vectors = copies.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
    _ = vectors.withUnsafeMutableBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
}
