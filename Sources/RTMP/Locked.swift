#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a POSIX mutex, for state that two threads share (the publisher's caller and
/// its sender queue).
///
/// `Synchronization.Mutex` would do, but on Linux it locks with atomics and futex calls inside
/// the prebuilt standard library, which ThreadSanitizer does not see: it reports every access
/// made under `withLock` from two threads as a race. ThreadSanitizer does see
/// `pthread_mutex_lock`, so the sanitizer run checks this state for real.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    /// - Complexity: O(1) besides `body`.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
