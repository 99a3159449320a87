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
        result.withLock(waitingUntil: .after(limit)) { r, _, _ in r }
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
/// thread of the pool), with no deadline of its own: for progress that needs another task to
/// run. How soon a task runs is the cooperative pool's business: in a full `swift test` on two
/// cores, synchronous tests that wait for child processes held both threads of the pool for
/// more than 120 s (a clock limit of 120 s failed there). Such waits are bounded by the suite's
/// `.timeLimit` instead, so a job that never starts still fails the test.
func whenTasksHaveRun(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(1)) }
}
