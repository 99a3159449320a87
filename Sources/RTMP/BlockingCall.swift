import Dispatch
import MediaSupport

/// Runs a blocking call on a Dispatch queue (never a thread of Swift concurrency's
/// cooperative pool) and awaits its result; a cancelled task stops waiting at once.
///
/// On cancellation the awaiting task resumes with ``RTMPError/Code/cancelled`` right away,
/// whatever the call is waiting for, after `onCancel` has asked the call to stop (it fires the
/// socket interrupt, so the queue's thread returns as soon as its system call wakes). A result
/// that arrives after the task gave up is handed to `discard` (a connection made too late is
/// closed there).
enum BlockingCall {
    static func run<T: Sendable>(on queue: DispatchQueue, onCancel: @escaping @Sendable () -> Void,
                                 discard: @escaping @Sendable (T) -> Void = { _ in },
                                 _ body: @escaping @Sendable () throws(RTMPError) -> T) async throws(RTMPError) -> T {
        let gate = Gate<T>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, RTMPError>, Never>) in
                gate.install(continuation)
                queue.async {
                    let r = Result { () throws(RTMPError) in try body() }
                    if !gate.resume(r), case .success(let value) = r { discard(value) }
                }
            }
        } onCancel: {
            onCancel()
            gate.resume(.failure(RTMPError.invalid(.cancelled, "the task was cancelled")))
        }
        return try result.get()
    }

    /// Resumes a continuation exactly once, with whichever result comes first (the call's or
    /// the cancellation's), whether or not the continuation is installed yet.
    private final class Gate<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result<T, RTMPError>, Never>?
            var early: Result<T, RTMPError>?
            var resumed = false
        }
        private let state = ThreadLock(State())

        func install(_ continuation: CheckedContinuation<Result<T, RTMPError>, Never>) {
            let early = state.withLock { s -> Result<T, RTMPError>? in
                if let e = s.early { return e }
                s.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        /// Resumes with `result` unless a result came first; false when one did.
        @discardableResult
        func resume(_ result: Result<T, RTMPError>) -> Bool {
            let (first, continuation) = state.withLock { s -> (Bool, CheckedContinuation<Result<T, RTMPError>, Never>?) in
                guard !s.resumed else { return (false, nil) }
                s.resumed = true
                defer { s.continuation = nil }
                if s.continuation == nil { s.early = result }
                return (true, s.continuation)
            }
            continuation?.resume(returning: result)
            return first
        }
    }
}
