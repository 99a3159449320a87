#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import MediaSupport

/// The one off-pool runner: jobs on a thread of their own, in order, and calls that stop
/// waiting when their task is cancelled.
@Suite(.timeLimit(.minutes(10))) struct BlockingWorkerTests {
    struct Failure: Error, Equatable { let code: Int }

    @Test func jobsRunInOrderOnOneThreadThatIsNotTheCallers() async throws {
        let worker = BlockingWorker()
        let seen = ThreadLock<[Int]>([])
        let threads = ThreadLock<Set<UInt>>([])
        for i in 0..<50 {
            worker.submit {
                seen.withLock { $0.append(i) }
                threads.withLock { _ = $0.insert(threadID()) }
            }
        }
        let caller = threadID()
        let last = try await worker.run { () throws(Failure) in threadID() }
        #expect(seen.withLock { $0 } == Array(0..<50))
        #expect(threads.withLock { $0 } == [last])
        #expect(last != caller)
    }

    @Test func runReturnsAndRethrowsTyped() async {
        let worker = BlockingWorker()
        #expect(await worker.run { () throws(Never) in 6 * 7 } == 42)
        await #expect(throws: Failure(code: 3)) { try await worker.run { () throws(Failure) in throw Failure(code: 3) } }
    }

    /// A body blocked on a socket with no deadline: cancelling the task resumes the caller at
    /// once with the cancellation error, and `onCancel` (the socket's interrupt) ends the body.
    @Test func cancellationResumesAtOnceAndInterruptsTheBody() async throws {
        let worker = BlockingWorker()
        let interrupt = Interrupt()
        let socket = try DatagramSocket(bindingTo: "127.0.0.1", port: 0, interrupt: interrupt)
        let bodyEnded = ThreadLock<SocketError?>(nil)
        let queuedBehind = ThreadLock(false)
        let blocked = ThreadLock(false)
        let call = Task {
            try await worker.run(onCancel: { interrupt.fire() }, cancellationError: { SocketError(.cancelled, "the task was cancelled") }) {
                () throws(SocketError) -> Int in
                var buffer = [UInt8](repeating: 0, count: 16)
                blocked.withLock { $0 = true }
                do throws(SocketError) {
                    return try buffer.withUnsafeMutableBytes { raw in
                        Result { () throws(SocketError) in try socket.receive(into: raw, deadline: nil) }
                    }.get()
                } catch {
                    bodyEnded.withLock { $0 = error }
                    bodyEnded.signalAll()
                    throw error
                }
            }
        }
        try await whenTasksHaveRun { blocked.withLock { $0 } }
        // A second call queued behind the blocked one, whose task is cancelled before it starts.
        let second = Task {
            try await worker.run(onCancel: {}, cancellationError: { SocketError(.cancelled, "") }) { () throws(SocketError) in
                queuedBehind.withLock { $0 = true }
            }
        }
        try await Task.sleep(for: .milliseconds(20))  // most likely submitted by now; skipped either way
        second.cancel()
        await #expect(throws: SocketError(.cancelled, "")) { try await second.value }
        call.cancel()
        await #expect(throws: SocketError(.cancelled, "")) { _ = try await call.value }
        let ended = bodyEnded.withLock(waitingUntil: .after(.seconds(10))) { e, _, _ in e }
        #expect(ended?.kind == .cancelled)
        _ = await worker.run { () throws(Never) in 0 }  // every job before this one has run or been skipped
        #expect(queuedBehind.withLock { $0 } == false)
    }

    /// A result that arrives after the task gave up is handed to `discard`.
    @Test func aLateResultIsDiscarded() async throws {
        let worker = BlockingWorker()
        let release = ThreadLock(false)
        let started = ThreadLock(false)
        let discarded = ThreadLock<Int?>(nil)
        let call = Task {
            try await worker.run(onCancel: {}, cancellationError: { Failure(code: 1) }, discard: { value in
                discarded.withLock { $0 = value }
                discarded.signalAll()
            }) { () throws(Failure) -> Int in
                started.withLock { $0 = true }
                _ = release.withLock(waitingUntil: nil) { go, _, _ in go ? true : nil }
                return 99
            }
        }
        try await whenTasksHaveRun { started.withLock { $0 } }  // a body cancelled before it starts never runs
        call.cancel()
        await #expect(throws: Failure(code: 1)) { _ = try await call.value }
        release.withLock { $0 = true }
        release.signalAll()
        let value = discarded.withLock(waitingUntil: .after(.seconds(10))) { v, _, _ in v }
        #expect(value == 99)
    }

    @Test func detachRunsOnAnotherThread() throws {
        let caller = threadID()
        let spawned = try Spawned { threadID() }
        let other = try #require(spawned.value())
        #expect(other != caller)
    }
}
