#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import MediaSupport

/// A closure running on a thread of its own, whose result the test waits for with a bound
/// (so that a wait that never ends fails the test instead of hanging it).
final class Spawned<T: Sendable>: Sendable {
    private let result = ThreadLock<T?>(nil)

    init(_ body: @escaping @Sendable () -> T) throws {
        let result = self.result
        try BlockingWorker.detach {
            let value = body()
            result.withLock { $0 = value }
            result.signalAll()
        }
    }

    /// The result, or nil when the closure has not returned within `limit`.
    func value(within limit: Duration = .seconds(10)) -> T? {
        let deadline = Deadline.after(limit)
        return result.withLock { r, waiter -> T? in
            while r == nil && !deadline.hasPassed { waiter.wait(until: deadline) }
            return r
        }
    }

    /// True once the closure has returned.
    var hasReturned: Bool { result.withLock { $0 != nil } }
}

/// Sleeps the calling thread (to give another thread the chance to reach a blocking call;
/// never to measure anything).
func pause(_ duration: Duration) {
    let (s, atto) = duration.components
    var request = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
    _ = nanosleep(&request, nil)
}

/// The calling thread's identity.
func threadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// Waits, from a task, until `condition` holds (checking every millisecond, without blocking a
/// thread of the pool); false when it did not within `limit`. A liveness check, not a timing:
/// the limit is long because in the whole suite on two cores other tests can hold both threads
/// of the cooperative pool for many seconds (processes waited for), and a task started here
/// only runs once one is free (10 s was seen to pass).
func eventually(within limit: Duration = .seconds(120), _ condition: () -> Bool) async -> Bool {
    let deadline = Deadline.after(limit)
    while !condition() {
        if deadline.hasPassed { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
