import Synchronization
import H264
import H264Video
import Testing

@Suite struct TestPatternSourceTests {
    @Test func testPatternFrames() throws {
        let collected = Mutex<[VideoFrame]>([])
        let source = try TestPatternSource(width: 64, height: 48, frameRate: (30000, 1001), frameCount: 5)
        try source.start { f in collected.withLock { $0.append(f) } }
        let frames = collected.withLock { $0 }
        #expect(frames.count == 5)
        #expect(frames.map(\.pts) == [0, 1001, 2002, 3003, 4004])
        #expect(frames[0].timescale == 30000)
        #expect(frames[0].planes[0].bytes != frames[1].planes[0].bytes)  // bars move, counter changes
        let count = Atomic(0)
        try source.start { _ in if count.add(1, ordering: .relaxed).newValue == 2 { source.stop() } }
        let delivered = count.load(ordering: .relaxed)
        #expect(delivered == 2)
        let noise = try TestPatternSource(width: 16, height: 16, frameCount: 2, pattern: .noise)
        #expect(try noise.makeFrame(0).planes[0].bytes != noise.makeFrame(0).planes[0].bytes)
        #expect(throws: H264VideoError(.invalidArgument, "")) { try TestPatternSource(width: 15, height: 16) }
    }
}
