#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State shared by threads, behind a POSIX mutex, with a condition variable a thread can sleep on
/// until another changes the state (a frame source's back-pressure, an RTMP publisher's sender
/// queue).
///
/// POSIX rather than `Synchronization.Mutex` for two reasons: a thread must be able to sleep
/// until the state changes, which `Mutex` cannot do; and on Linux `Mutex` locks with atomics and
/// futex calls inside the prebuilt standard library, which ThreadSanitizer does not see (it
/// reports every access made under `withLock` from two threads as a race), while it does see
/// `pthread_mutex_lock`, so the sanitizer run checks the state for real.
///
/// Memory: the state, one mutex and one condition variable.
package final class ThreadLock<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    /// - Complexity: O(1) besides `body`.
    package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` with exclusive access to the state. `body` may call `wait` on the handle it
    /// is given to sleep until another thread calls ``signalAll()``; the lock is released while
    /// it sleeps.
    /// - Complexity: O(1) besides `body`.
    package func withLock<R, E: Error>(_ body: (inout State, Waiter) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state, Waiter(mutex: mutex, condition: condition))
    }

    /// Wakes every thread waiting in ``withLock(_:)-(State,Waiter)``. Call it after changing the state.
    package func signalAll() { pthread_cond_broadcast(condition) }

    /// Sleeps inside ``ThreadLock/withLock(_:)-(State,Waiter)`` until the next
    /// ``ThreadLock/signalAll()`` (or a spurious wake-up: callers recheck the state in a loop).
    package struct Waiter {
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

        package func wait() { pthread_cond_wait(condition, mutex) }
    }
}
