import Foundation
import ScheddApps

/// A process that looks like a Flatpak app from outside: `unshare -m --propagation private`, a private
/// root of bind-mounted top-level directories with `/.flatpak-info` in it, then `chroot ROOT sleep`.
/// Nothing is created in the real root; the root directory is a temporary one removed by `stop()`.
final class FakeFlatpakProcess {
    let process = Process()
    let root: String
    var pid: Int32 { process.processIdentifier }

    /// `asSymlinkTo`: make `.flatpak-info` a symlink to that path instead of a file (a hostile sandbox).
    init(appID: String, asSymlinkTo target: String? = nil) throws {
        root = NSTemporaryDirectory() + "schedd-fakeflatpak-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let ready = root + ".ready"
        let info = target.map { "ln -s \($0) \"$R/.flatpak-info\"" }
            ?? "printf '[Application]\\nname=\(appID)\\n' > \"$R/.flatpak-info\""
        let script = """
        set -e
        R=\(root)
        mount -t tmpfs tmpfs "$R"
        for d in usr bin sbin lib lib64 etc tmp proc dev; do
            [ -e /$d ] || continue
            if [ -L /$d ]; then ln -s "$(readlink /$d)" "$R/$d"; else mkdir -p "$R/$d"; mount --rbind /$d "$R/$d"; fi
        done
        \(info)
        touch \(ready)
        exec chroot "$R" /bin/sleep 60
        """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "--propagation", "private", "/bin/sh", "-c", script]
        try process.run()
        var waited = 0
        while !FileManager.default.fileExists(atPath: ready) {
            guard process.isRunning, waited < 500 else { throw FixtureError("the fake sandbox did not start") }
            usleep(10_000); waited += 1
        }
        // `exec chroot` keeps the pid; wait until the chroot took effect.
        waited = 0
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/root")) == "/" {
            guard waited < 500 else { throw FixtureError("the fake sandbox did not chroot") }
            usleep(10_000); waited += 1
        }
        try? FileManager.default.removeItem(atPath: ready)
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A real cgroup named like a desktop launcher's app scope, under a user manager path, in the
/// cgroup v2 hierarchy (`/sys/fs/cgroup/unified` on hybrid machines, else `/sys/fs/cgroup`).
struct AppScopeCgroup {
    let directory: String
    let base: String

    init(unit: String) throws {
        let unified = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/unified/cgroup.procs")
            ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup"
        base = unified + "/schedd-test-\(getpid()).slice"
        directory = base + "/user@0.service/app.slice/" + unit
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func add(pid: Int32) throws {
        try "\(pid)\n".write(toFile: directory + "/cgroup.procs", atomically: false, encoding: .utf8)
    }

    /// Removes the cgroups deepest first (each must be empty: the test's process exited).
    func remove() {
        var path = directory
        while path.count >= base.count {
            rmdir(path)
            guard let slash = path.lastIndex(of: "/") else { break }
            path = String(path[..<slash])
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
