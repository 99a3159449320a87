import Foundation
import H264
import H264Video
import Synchronization
import Testing

// The snippets of the H264Video catalog (Sources/H264Video/H264Video.docc); each marked region
// is shown, as it is, in an article (Docs/check-snippets.py checks it).

// snippet: push-capturer
final class Camera: FrameSource {
    private let stopped = Atomic(false)

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void) throws {
        start(consumer, onEnd: { _ in })
    }

    func start(_ consumer: @escaping @Sendable (VideoFrame) throws -> Void,
               onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        stopped.store(false, ordering: .relaxed)
        Thread.detachNewThread { [self] in                 // the capture thread
            do {
                for i in 0..<30 where !stopped.load(ordering: .relaxed) {
                    try consumer(try VideoFrame(width: 64, height: 64, format: .nv12, pts: Int64(i) * 3000))
                }
                onEnd(nil)                                  // ran out, or was stopped
            } catch {
                onEnd(error)                                // failed, or the consumer threw
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
// end snippet

@Suite struct H264VideoSnippets {
    /// The push capturer through `start(_:)`: every frame, in order, on the capture thread.
    @Test func pushCapturerStart() throws {
        let received = Mutex<[Int64]>([])
        let ended = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        Camera().start({ frame in received.withLock { $0.append(frame.pts) } },
                       onEnd: { error in ended.withLock { $0 = error == nil }; done.signal() })
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(ended.withLock { $0 })
        #expect(received.withLock { $0 } == (0..<30).map { Int64($0) * 3000 })
    }

    /// The push capturer as an async sequence: the loop ends when the camera calls `onEnd`.
    @Test func pushCapturerFrames() async throws {
        // snippet: frames-from-capturer
        let frames = Camera().frames(buffering: .dropOldest(capacity: 4))   // live: drop, never wait
        var received: [VideoFrame] = []
        for try await frame in frames {              // ends when the camera calls onEnd
            received.append(frame)                    // or encode it
        }
        let dropped = frames.droppedFrameCount        // the oldest, when the loop fell behind
        // end snippet
        #expect(received.count >= 1)
        #expect(received.count + dropped == 30)
        let pts = received.map(\.pts)
        #expect(zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 })
    }
}
