// A POSIX mutex with one condition variable (pthread_mutex_*, pthread_cond_*): how a thread of the
// daemon sleeps until another one has work for it, with no timeout (nothing polls).
import Glibc

/// A mutex and one condition variable. A waiting thread sleeps in the kernel (futex) until `signal`;
/// it never wakes on a timer. Spurious wake-ups are possible (POSIX): wait in a loop on the condition.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// With the lock held: releases it until `signal`, then holds it again.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// With the lock held: wakes every waiter.
    public func signal() { pthread_cond_broadcast(condition) }
}
