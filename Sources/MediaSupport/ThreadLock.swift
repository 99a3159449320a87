#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State shared by threads, behind a POSIX mutex, with a condition variable a thread can sleep on
/// until another changes the state or a ``Deadline`` passes (``BoundedQueue``'s back-pressure,
/// an RTMP publisher's finish): the one lock of the package, for plain state too.
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
        #if canImport(Darwin)
        pthread_cond_init(condition, nil)  // timed waits are relative (Waiter.wait(until:))
        #else
        // Timed waits measure on the monotonic clock: a change of the wall clock cannot
        // lengthen or cut them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        #endif
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

    /// Runs `body` with exclusive access to the state; `body` may wake the threads waiting on
    /// this lock (``Waiter/signalAll()``).
    /// - Complexity: O(1) besides `body`.
    package func withLock<R, E: Error>(_ body: (inout State, Waiter) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state, Waiter(mutex: mutex, condition: condition))
    }

    /// Runs `body` under the lock until it returns a value, sleeping between runs (the lock
    /// released) until another thread calls ``signalAll()``, or `deadline` passes (nil: never).
    /// `body` gets `timedOut` true once the deadline has passed: its last run, whose nil is
    /// returned as nil.
    ///
    /// Each run is an access of its own to the state, so it reads what other threads changed
    /// while it slept. A sleep inside one access cannot promise that: the state is an `inout`
    /// argument there, which the optimiser may keep in registers across the sleep (a release
    /// build once never saw a flag another thread had set).
    /// - Complexity: O(1) besides `body` and the sleeps.
    package func withLock<R, E: Error>(waitingUntil deadline: Deadline?,
                                      _ body: (inout State, Waiter, _ timedOut: Bool) throws(E) -> R?) throws(E) -> R? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let waiter = Waiter(mutex: mutex, condition: condition)
        var timedOut = deadline?.hasPassed ?? false
        while true {
            if let result = try body(&state, waiter, timedOut) { return result }
            if timedOut { return nil }
            timedOut = !waiter.wait(until: deadline)
        }
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:_:)``. Call it after changing the state.
    package func signalAll() { pthread_cond_broadcast(condition) }

    /// The handle `body` gets inside the lock: wakes the threads waiting on it.
    package struct Waiter {
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

        /// Sleeps (the lock released) until a signal, a spurious wake-up, or `deadline` (`nil`:
        /// none); only ``ThreadLock/withLock(waitingUntil:_:)`` calls it, between two accesses.
        /// - Returns: false when the deadline had passed or passed while sleeping (the caller
        ///   still looks at the state once more: a signal and the deadline may come together).
        fileprivate func wait(until deadline: Deadline?) -> Bool {
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                return true
            }
            let left = deadline.remaining
            guard left > .zero else { return false }
            let (seconds, attoseconds) = left.components
            // Below 10^9 nanoseconds; the seconds are capped at a day (a longer wait wakes once
            // a day and the caller's loop waits again).
            let nanoseconds = Int(attoseconds / 1_000_000_000)
            let wholeSeconds = Int(min(seconds, 86_400))
            #if canImport(Darwin)
            var relative = timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
            return pthread_cond_timedwait_relative_np(condition, mutex, &relative) != ETIMEDOUT
            #else
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            // now.tv_nsec and nanoseconds are each below 10^9: their sum is below 2 * 10^9.
            var nsec = now.tv_nsec &+ nanoseconds
            var sec = now.tv_sec &+ wholeSeconds  // the monotonic clock's seconds plus at most a day
            if nsec >= 1_000_000_000 {
                nsec &-= 1_000_000_000
                sec &+= 1
            }
            var absolute = timespec(tv_sec: sec, tv_nsec: nsec)
            return pthread_cond_timedwait(condition, mutex, &absolute) != ETIMEDOUT
            #endif
        }

        /// Wakes every thread waiting on this lock (as ``ThreadLock/signalAll()``), from inside
        /// the lock.
        package func signalAll() { pthread_cond_broadcast(condition) }
    }
}
