import Glibc

/// Where the daemon keeps its database when no `--db PATH` is given.
public enum StorePath {
    /// `$XDG_STATE_HOME/schedd/schedd.db`, else `$HOME/.local/state/schedd/schedd.db` (XDG Base Directory
    /// spec: an empty or relative `XDG_STATE_HOME` is ignored). Nil when neither variable helps.
    public static func defaultDatabasePath(xdgStateHome: String?, home: String?) -> String? {
        if let state = xdgStateHome, state.hasPrefix("/") { return state + "/schedd/schedd.db" }
        if let home, home.hasPrefix("/") { return home + "/.local/state/schedd/schedd.db" }
        return nil
    }

    /// `defaultDatabasePath` from this process's environment.
    public static func defaultDatabasePath() -> String? {
        defaultDatabasePath(xdgStateHome: getenv("XDG_STATE_HOME").map { String(cString: $0) },
                            home: getenv("HOME").map { String(cString: $0) })
    }

    /// Creates `path`'s missing parent directories (mode 0700) and the file itself (mode 0600, whatever the
    /// umask) when it does not exist, then fsyncs the directory so the new entry survives power loss.
    /// Never truncates or replaces an existing file.
    static func createIfMissing(_ path: String) throws(StoreError) {
        let directory = parentDirectory(of: path)
        try makeDirectories(directory)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw StoreError(.unavailable, "cannot create database \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)
        fsync(fd)
        close(fd)
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    /// Whether `path` is a regular file with at least one byte.
    static func nonEmptyFileExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func makeDirectories(_ directory: String) throws(StoreError) {
        var isDirectory = stat()
        if stat(directory, &isDirectory) == 0 { return }
        let parent = parentDirectory(of: directory)
        if parent != directory && parent != "." { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.unavailable, "cannot create directory \(directory): \(String(cString: strerror(errno)))")
        }
    }
}
