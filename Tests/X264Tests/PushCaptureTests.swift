import Dispatch
import Foundation
import H264
import H264Video
import Synchronization
import Testing
import X264

/// A push capturer as a user writes one: it owns a capture thread, returns from `start` at
/// once and calls the consumer from that thread until `stop` (the OpenTok `OTVideoCapture`
/// model).
private final class ThreadedCapturer: FrameSource {
    private let pattern: TestPatternSource
    private let stopped = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    let delivered = Atomic(0)
    let captureThreadWasMain = Atomic(false)
    /// Why the capture thread ended before `stop`, when it did.
    let failure = Mutex<String?>(nil)

    init(width: Int, height: Int) throws {
        pattern = try TestPatternSource(width: width, height: height, frameCount: Int.max)
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        start(consumer, onEnd: { _ in })
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void, onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        stopped.store(false, ordering: .relaxed)
        let thread = Thread { [self] in
            defer { done.signal() }
            defer { onEnd(nil) }
            if Thread.isMainThread { captureThreadWasMain.store(true, ordering: .relaxed) }
            var index = 0
            while !stopped.load(ordering: .relaxed) {
                do {
                    try consumer(try pattern.makeFrame(index))  // the consumer's error stops capture
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    return
                }
                delivered.add(1, ordering: .relaxed)
                index += 1
            }
        }
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Waits for the capture thread to end (after `stop`).
    func join(timeout: DispatchTime) -> Bool { done.wait(timeout: timeout) == .success }
}

@Suite struct PushCaptureTests {
    @Test func encoderFedFromACaptureThread() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        let capturer = try ThreadedCapturer(width: 160, height: 96)
        let output = Mutex<[EncodedFrame]>([])
        let submitted = Atomic(0)
        let ready = DispatchSemaphore(value: 0)
        let forcedIndex = 17
        try capturer.start { frame in
            let n = submitted.add(1, ordering: .relaxed).oldValue
            let out = try encoder.encode(frame, options: FrameEncodeOptions(forceKeyframe: n == forcedIndex))
            output.withLock { $0 += out }
            if n == 39 { ready.signal() }
        }
        // start returned at once; frames arrive on the capture thread.
        #expect(ready.wait(timeout: .now() + 60) == .success)
        capturer.stop()
        #expect(capturer.join(timeout: .now() + 30))
        let onMain = capturer.captureThreadWasMain.load(ordering: .relaxed)
        #expect(!onMain)
        let failure = capturer.failure.withLock { $0 }
        #expect(failure == nil, "the capture thread stopped on its own")
        let frames = output.withLock { $0 } + (try encoder.flush())

        let count = capturer.delivered.load(ordering: .relaxed)
        #expect(count >= 40)
        #expect(frames.count == count)
        let submittedCount = submitted.load(ordering: .relaxed)
        #expect(frames.count == submittedCount)
        let byPTS = frames.sorted { $0.pts < $1.pts }
        #expect(byPTS.map(\.pts) == Array(0..<Int64(count)))  // 30 fps pattern: one tick a frame
        #expect(byPTS[0].isSyncSample)
        #expect(byPTS[forcedIndex].isSyncSample)
        #expect(byPTS[1].isSyncSample == false)
    }

    @Test func libraryPullSourceStopsFromAnotherThread() throws {
        let source = try TestPatternSource(width: 32, height: 32, frameCount: Int.max)
        let seen = Atomic(0)
        let tenth = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            tenth.wait()
            source.stop()
        }
        try source.start { _ in
            if seen.add(1, ordering: .relaxed).newValue == 10 { tenth.signal() }
        }
        // stop() came from another thread while frames flowed; start returned.
        let seenCount = seen.load(ordering: .relaxed)
        #expect(seenCount >= 10)
    }
}
