import Foundation
import Testing

/// Threads of the tests' own for async tests that keep up with real time (servers with idle
/// deadlines, publishers paced at real time, consumers a server waits for).
///
/// Swift concurrency's pool has one thread per core: on a 2-core machine two synchronous tests
/// that wait for a child process (FFmpeg, GStreamer, x264) hold both threads, and an async
/// test waits for minutes between two steps; a real-time test then fails for that alone (a
/// publisher idle past the server's deadline, a consumer the server gave up on). Inside
/// ``RealTimeTrait`` the test's tasks run on these threads instead, which nothing else blocks.
public final class TestThreadsExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `idle` and `threads` are only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Threads waiting for a job.
    private var idle = 0
    /// Threads alive.
    private var threads = 0

    /// The executor of every ``RealTimeTrait`` test.
    public static let shared = TestThreadsExecutor()

    /// An executor with no thread yet: a job that finds no idle thread starts one (a test that
    /// blocks its thread, on a socket or a child process, never holds up another's jobs), and a
    /// thread idle for 10 s ends.
    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = jobs.count > idle
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "test-threads"
            thread.start()
        }
    }

    private func run() {
        condition.lock()
        while true {
            idle += 1
            var waited = false
            while jobs.isEmpty {
                if waited && jobs.isEmpty {
                    idle -= 1
                    threads -= 1
                    condition.unlock()
                    return
                }
                waited = !condition.wait(until: Date().addingTimeInterval(10))
            }
            idle -= 1
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}

/// Runs each test (of a suite, recursively) with its tasks preferring ``TestThreadsExecutor``:
/// the test's own code and the tasks it starts go on the tests' threads, not the cooperative
/// pool that synchronous tests may be holding.
public struct RealTimeTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(TestThreadsExecutor.shared) {
            try await function()
        }
    }
}

extension Trait where Self == RealTimeTrait {
    /// The test's tasks run on threads of the tests' own (see ``TestThreadsExecutor``).
    public static var realTime: Self { RealTimeTrait() }
}
