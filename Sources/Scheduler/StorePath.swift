import ScheddSystem

/// Where the daemon keeps its database when no `--db PATH` is given.
public enum StorePath {
    /// `$XDG_STATE_HOME/schedd/schedd.db`, else `$HOME/.local/state/schedd/schedd.db` (XDG Base Directory
    /// spec: an empty or relative `XDG_STATE_HOME` is ignored). Nil when neither variable helps.
    public static func defaultDatabasePath(xdgStateHome: String?, home: String?) -> String? {
        if let state = xdgStateHome, state.hasPrefix("/") { return state + "/schedd/schedd.db" }
        if let home, home.hasPrefix("/") { return home + "/.local/state/schedd/schedd.db" }
        return nil
    }

    /// Creates `path`'s missing parent directories (mode 0700) and the file itself (mode 0600, whatever the
    /// umask) when it does not exist, then fsyncs the directory so the new entry survives power loss.
    /// Never truncates or replaces an existing file.
    static func createIfMissing(_ path: String) throws(StoreError) {
        let directory = parentDirectory(of: path)
        try makeDirectories(directory)
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive], permissions: 0o600) } catch {
            if error == .fileExists { return }
            throw StoreError(.unavailable, "cannot create database \(path): \(error)")
        }
        try? fd.setPermissions(0o600)
        try? fd.sync()
        fd.close()
        if let directoryFD = try? FileDescriptor.open(directory, .readOnly, options: [.directory]) {
            try? directoryFD.sync()
            directoryFD.close()
        }
    }

    /// Whether `path` is a regular file with at least one byte.
    static func nonEmptyFileExists(_ path: String) -> Bool {
        guard let info = try? FileSystem.status(path) else { return false }
        return info.isRegularFile && info.size > 0
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func makeDirectories(_ directory: String) throws(StoreError) {
        if (try? FileSystem.status(directory)) != nil { return }
        let parent = parentDirectory(of: directory)
        if parent != directory && parent != "." { try makeDirectories(parent) }
        do { try FileSystem.makeDirectory(directory, permissions: 0o700) } catch {
            if error != .fileExists { throw StoreError(.unavailable, "cannot create directory \(directory): \(error)") }
        }
    }
}
