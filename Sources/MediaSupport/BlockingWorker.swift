#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way to run blocking work off Swift concurrency's cooperative pool (whose threads
/// are as many as the cores, and must never wait on a file, a socket or a lock): a dedicated
/// POSIX thread.
///
/// - ``detach(_:)`` starts a thread for a loop that blocks as long as it runs (a frame
///   source reading a file, an RTMP publisher's sender).
/// - A worker (``init()``) is one thread that runs jobs one at a time in the order they
///   were submitted (an encoder's calls, a publisher's connect and finish); async callers
///   suspend while their job runs (``run(_:)``), and ``run(onCancel:cancellationError:discard:_:)``
///   gives up at once when their task is cancelled.
///
/// A thread rather than Dispatch: the package's lock and waits are POSIX already
/// (``ThreadLock``), a blocking loop may hold its thread for as long as it runs without
/// starving a shared pool, and ThreadSanitizer sees every hand-off.
///
/// Memory: a thread (its stack is reserved, not committed) and the jobs waiting; the thread
/// ends when the worker is released and its waiting jobs have run.
package final class BlockingWorker: Sendable {
    /// A job of the worker's thread.
    package typealias Job = @Sendable () -> Void

    /// The system refused a new thread.
    package struct ThreadStartError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The code `pthread_create` returned (`EAGAIN`: a limit on threads was reached).
        package let code: Int32
        package var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
    }

    private let jobs = BoundedQueue<Job>(capacity: 1, overflow: .block)
    private let started = ThreadLock(false)

    /// A worker whose thread starts with the first job.
    package init() {}

    deinit { jobs.close() }

    /// Runs `job` on the worker's thread after the jobs submitted before it. When the system
    /// refuses to start the thread, `job` runs on the calling thread instead (blocking it, but
    /// never lost).
    package func submit(_ job: @escaping Job) {
        // Jobs are exempt: the queue never refuses or drops them, nor blocks the submitter.
        jobs.push(job, exempt: true)
        let start = started.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        guard start else { return }
        let jobs = self.jobs  // the thread holds the jobs, not the worker: releasing it ends them
        do {
            try Self.detach {
                while case .element(let job) = jobs.pop() { job() }
            }
        } catch {
            // No thread: run what waits here, now and for every later submit.
            started.withLock { $0 = false }
            while case .element(let job) = jobs.pop(deadline: .now) { job() }
        }
    }

    /// Runs `body` on the worker's thread and suspends the calling task until it returns: the
    /// task's cancellation does not stop a job that has started (the body may check its own
    /// conditions).
    /// - Returns: what `body` returns; rethrows what it throws.
    package func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            submit { continuation.resume(returning: Result { () throws(E) in try body() }) }
        }
        return try result.get()
    }

    /// Runs `body` on the worker's thread and suspends the calling task until it returns, or
    /// until the task is cancelled: then `onCancel` asks the body to stop (it fires the
    /// ``Interrupt`` of the sockets it waits on) and the task resumes at once with
    /// `cancellationError()`, whatever the body is waiting for. A body that has not started by
    /// then never runs; a result it returns after the task gave up goes to `discard` (a
    /// connection made too late is closed there).
    package func run<T: Sendable, E: Error>(onCancel: @escaping @Sendable () -> Void,
                                            cancellationError: @escaping @Sendable () -> E,
                                            discard: @escaping @Sendable (T) -> Void = { _ in },
                                            _ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let gate = Gate<Result<T, E>>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
                gate.install(continuation)
                submit {
                    guard !gate.isResolved else { return }
                    let r = Result { () throws(E) in try body() }
                    if !gate.resolve(r), case .success(let value) = r { discard(value) }
                }
            }
        } onCancel: {
            onCancel()
            gate.resolve(.failure(cancellationError()))
        }
        return try result.get()
    }

    /// Starts `body` on a new detached thread.
    /// - Throws: ``ThreadStartError`` when the system refuses a thread.
    package static func detach(_ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #else
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw ThreadStartError(code: result)
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Resumes a continuation exactly once, with whichever result comes first (the body's or
    /// the cancellation's), whether or not the continuation is installed yet.
    private final class Gate<R: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<R, Never>?
            var early: R?
            var resolved = false
        }
        private let state = ThreadLock(State())

        var isResolved: Bool { state.withLock { $0.resolved } }

        func install(_ continuation: CheckedContinuation<R, Never>) {
            let early = state.withLock { s -> R? in
                if let early = s.early { return early }
                s.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        /// Resumes with `result` unless a result came first; false when one did.
        @discardableResult
        func resolve(_ result: R) -> Bool {
            let (first, continuation) = state.withLock { s -> (Bool, CheckedContinuation<R, Never>?) in
                guard !s.resolved else { return (false, nil) }
                s.resolved = true
                defer { s.continuation = nil }
                if s.continuation == nil { s.early = result }
                return (true, s.continuation)
            }
            continuation?.resume(returning: result)
            return first
        }
    }
}
