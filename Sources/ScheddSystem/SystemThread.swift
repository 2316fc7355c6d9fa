import CLinuxProcess
import Glibc

/// A POSIX thread of the process (`pthread_create`): the one place outside the C shims where threads
/// are made, joined, detached and compared. Shape: a small value wrapping `pthread_t`.
///
/// Every thread must be joined (`join`) or detached (`detach`) exactly once.
public struct SystemThread: Sendable {
    private let handle: pthread_t

    /// Starts `body` on a new thread, named `name` (at most 15 bytes are kept: prctl `PR_SET_NAME`;
    /// what `ps -L` and a debugger show) when given; nil when none could be created (then `body` is
    /// released without running). O(1).
    public static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) -> SystemThread? {
        final class Box: Sendable {
            let name: String?
            let body: @Sendable () -> Void
            init(_ name: String?, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(name, body))
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            if let name = box.name { _ = clinux_name_this_thread(name) }
            box.body()
            return nil
        }, box.toOpaque())
        guard rc == 0 else { box.release(); return nil }
        return SystemThread(handle: thread)
    }

    /// Waits until the thread has returned (`pthread_join`).
    public func join() { pthread_join(handle, nil) }

    /// Lets the thread end on its own (`pthread_detach`).
    public func detach() { pthread_detach(handle) }
}

/// Which thread runs (`pthread_self`), compared with `pthread_equal`: the loop-bound values' owner check.
public struct ThreadIdentity: Sendable, Equatable, CustomStringConvertible {
    private let id: pthread_t

    /// The calling thread.
    public static var current: ThreadIdentity { ThreadIdentity(id: pthread_self()) }

    public static func == (a: ThreadIdentity, b: ThreadIdentity) -> Bool { pthread_equal(a.id, b.id) != 0 }

    public var description: String { String(id) }
}
