#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State shared by a frame source's thread and the task that takes its frames, behind a POSIX
/// mutex with a condition variable the source's thread waits on (back-pressure).
///
/// POSIX rather than `Synchronization.Mutex` for two reasons: a thread must be able to sleep
/// until the state changes, which `Mutex` cannot do; and ThreadSanitizer sees
/// `pthread_mutex_lock` (it does not see the futex calls inside `Mutex`).
final class ConditionLock<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state: State

    init(_ state: State) {
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

    /// Runs `body` with exclusive access to the state. `body` may call `wait` on the handle it
    /// is given to sleep until another thread calls ``signalAll()``; the lock is released while
    /// it sleeps.
    /// - Complexity: O(1) besides `body`.
    func withLock<R, E: Error>(_ body: (inout State, Waiter) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state, Waiter(mutex: mutex, condition: condition))
    }

    /// Wakes every thread waiting in ``withLock(_:)``. Call it after changing the state.
    func signalAll() { pthread_cond_broadcast(condition) }

    /// Sleeps inside ``ConditionLock/withLock(_:)`` until the next ``ConditionLock/signalAll()``
    /// (or a spurious wake-up: callers recheck the state in a loop).
    struct Waiter {
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

        func wait() { pthread_cond_wait(condition, mutex) }
    }
}
