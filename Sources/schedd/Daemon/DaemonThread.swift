import Glibc

/// Starts `body` on a new POSIX thread of the daemon's (the integrity check, the checkpoints): the one
/// place the daemon creates a thread. Returns the thread, to be joined or detached by the caller, or nil
/// when none could be created (then `body` is released without running).
func startDaemonThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body))
    let rc = pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, box.toOpaque())
    guard rc == 0 else { box.release(); return nil }
    return thread
}
