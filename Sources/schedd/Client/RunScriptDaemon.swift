import ScheddSystem

/// The daemon `scripts/run.sh` started, found through the file it leaves while that daemon serves
/// (docs/cli.md, "Reaching the daemon of scripts/run.sh"): the CLI's no-bus errors name the line that
/// reaches it, so a second terminal with nothing set is one paste away. The CLI never connects to it
/// by itself: the bus stays the one `DBUS_SESSION_BUS_ADDRESS` or `--bus` names (CONTRACT §6).
///
/// The file is `schedd-run-UID.env` in `$XDG_RUNTIME_DIR`, else `/run/user/UID`, else `/tmp`; it holds
/// `SCHEDD_RUN_PID=N` and the shell lines `export DBUS_SESSION_BUS_ADDRESS='…'` and
/// `export PATH='…':"$PATH"` (so `. FILE` reaches the daemon too). It counts only when it is a regular
/// file of the person's own uid that nobody else may write and its PID is alive, so a stale file (a
/// killed run.sh) or one planted in `/tmp` by another user is ignored. Cost: up to three `stat`s and one
/// read of a file of at most 4 KiB, on error paths only.
struct RunScriptDaemon: Equatable {
    /// The daemon's PID.
    var pid: Int32
    /// The bus it serves (`unix:path=/tmp/dbus-…`).
    var address: String
    /// The line to paste in another terminal: exports the bus address and puts schedd on `PATH`.
    var exportLine: String

    /// The file names run.sh may have used, most specific first.
    static func candidates(uid: UInt32 = CurrentProcess.realUserID,
                           runtimeDirectory: String? = CurrentProcess.environment("XDG_RUNTIME_DIR")) -> [String] {
        var directories: [String] = []
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") { directories.append(runtimeDirectory) }
        directories += ["/run/user/\(uid)", "/tmp"]
        var seen = Set<String>()
        return directories.filter { seen.insert($0).inserted }.map { "\($0)/schedd-run-\(uid).env" }
    }

    /// The run.sh daemon that serves now, or nil.
    static func find() -> RunScriptDaemon? {
        let uid = CurrentProcess.realUserID
        for path in candidates(uid: uid) {
            guard let status = try? FileSystem.linkStatus(path), status.isRegularFile, status.owner == uid,
                  status.permissions & 0o022 == 0, status.size <= 4096,
                  let text = readSmallFile(path, limit: 4096), let found = parse(text), isAlive(found.pid) else { continue }
            return found
        }
        return nil
    }

    /// Reads the file's text; nil when it lacks the PID or the bus address.
    static func parse(_ text: String) -> RunScriptDaemon? {
        var pid: Int32?, address: String?, exports: [String] = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("SCHEDD_RUN_PID=") { pid = Int32(line.dropFirst("SCHEDD_RUN_PID=".count)) }
            let busPrefix = "export DBUS_SESSION_BUS_ADDRESS='"
            if line.hasPrefix(busPrefix), line.hasSuffix("'"), line.count > busPrefix.count + 1 {
                address = String(line.dropFirst(busPrefix.count).dropLast())
                exports.append(line)
            } else if line.hasPrefix("export PATH=") {
                exports.append(line)
            }
        }
        guard let pid, pid > 0, let address, !address.contains("'") else { return nil }
        return RunScriptDaemon(pid: pid, address: address, exportLine: exports.joined(separator: "; "))
    }

    private static func isAlive(_ pid: Int32) -> Bool {
        do { try CurrentProcess.signal(pid, 0); return true } catch { return error == .notPermitted }
    }

    /// The hint: where the daemon is and the line that reaches it.
    var hint: String {
        "the daemon scripts/run.sh started (PID \(pid)) serves \(address): reach it from this shell with: "
            + "\(exportLine) (or add --bus '\(address)')"
    }
}
