import Glibc
import ScheddSystem

/// A value that only the event loop's thread may touch (STYLE §5; swift-nio's `NIOLoopBound`).
///
/// The engine and the C handles (`sd_bus *`, `sd_event *`) are not thread-safe; instead of scattering
/// `@unchecked Sendable`, the daemon keeps them in a `LoopBound`, which traps (with both thread ids)
/// when read from any other thread. The check costs one thread-identity comparison per access (ScheddSystem's
/// `ThreadIdentity`: `pthread_self`, `pthread_equal`).
public struct LoopBound<Value> {
    private let stored: Value
    private let owner: ThreadIdentity

    /// Binds `value` to the thread that owns `loop` (the one that created it and runs it).
    public init(_ value: Value, loop: EventLoop) {
        stored = value
        owner = loop.ownerThread
    }

    /// The value; traps when called off the owner thread.
    public var value: Value {
        precondition(ThreadIdentity.current == owner,
                     "loop-bound value used off its loop thread (owner \(owner), caller \(ThreadIdentity.current))")
        return stored
    }
}
