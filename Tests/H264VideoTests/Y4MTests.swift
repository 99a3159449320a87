import Synchronization
import Testing
import H264
@testable import H264Video

@Suite struct Y4MTests {
    static func stream(_ header: String, frames: Int, frameBytes: Int) -> [UInt8] {
        var out = Array((header + "\n").utf8)
        for i in 0..<frames {
            out += Array("FRAME\n".utf8)
            out += (0..<frameBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
        }
        return out
    }

    /// The frames of `bytes` fed in chunks of `chunk` bytes, and the parser after `finish()`.
    static func parse(_ bytes: [UInt8], chunk: Int) throws -> (Y4MParser, [VideoFrame]) {
        var parser = Y4MParser()
        var frames: [VideoFrame] = []
        var i = 0
        while i < bytes.count {
            parser.append(bytes[i..<min(i + chunk, bytes.count)])
            while let f = try parser.nextFrame() { frames.append(f) }
            i += chunk
        }
        try parser.finish()
        return (parser, frames)
    }

    @Test func headerParameters() throws {
        let h = try Y4MHeader(line: Array("YUV4MPEG2 W1280 H720 F30000:1001 It A128:117 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=FULL".utf8))
        #expect(h.width == 1280 && h.height == 720)
        #expect(h.frameRate == (30000, 1001))
        #expect(h.interlacing == .topFieldFirst)
        #expect(h.pixelAspect == (128, 117))
        #expect(h.pixelFormat == .i420 && h.colorspace == "420mpeg2")
        #expect(h.colorRange == .full)
        #expect(h.extensions == ["YSCSS=420MPEG2", "COLORRANGE=FULL"])
        #expect(h.frameByteCount == 1280 * 720 * 3 / 2)
        let d = try Y4MHeader(line: Array("YUV4MPEG2 W8 H2".utf8))
        #expect(d.pixelFormat == .i420 && d.interlacing == .unknown && d.colorRange == nil && d.frameRate == (0, 0))
        #expect(try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 C422 Ib".utf8)).pixelFormat == .i422)
        #expect(try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 C444 Ip".utf8)).interlacing == .progressive)
    }

    @Test func badHeaders() {
        #expect(throws: H264VideoError(.invalidArgument, "")) { try Y4MHeader(line: Array("YUV4MPEG W8 H2".utf8)) }
        #expect(throws: H264VideoError(.invalidArgument, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W8".utf8)) }
        #expect(throws: H264VideoError(.invalidArgument, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 Fx".utf8)) }
        #expect(throws: H264VideoError(.unsupported, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 C420p10".utf8)) }
        #expect(throws: H264VideoError(.unsupported, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W8 H2 Cmono".utf8)) }
        #expect(throws: H264VideoError(.limitExceeded, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W99999 H2".utf8)) }
        #expect(throws: H264VideoError(.limitExceeded, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W65536 H65536".utf8)) }
        #expect(throws: H264VideoError(.invalidArgument, "")) { try Y4MHeader(line: Array("YUV4MPEG2 W999999999999 H2".utf8)) }
    }

    @Test(arguments: [("C420jpeg", PixelFormat.i420, 6 * 4 + 2 * 3 * 2), ("C422", .i422, 6 * 4 + 2 * 3 * 4), ("C444", .i444, 3 * 6 * 4)])
    func framesInAnyChunking(_ c: (String, PixelFormat, Int)) throws {
        let bytes = Self.stream("YUV4MPEG2 W6 H4 F25:1 \(c.0)", frames: 3, frameBytes: c.2)
        for chunk in [1, 7, 1000] {
            let (_, frames) = try Self.parse(bytes, chunk: chunk)
            #expect(frames.count == 3)
            #expect(frames.allSatisfy { $0.format == c.1 && $0.width == 6 && $0.height == 4 && $0.timescale == 25 })
            #expect(frames.map(\.pts) == [0, 1, 2])
            #expect(frames[1].planes[0].bytes[0] == 1 && frames[1].planes[0].bytesPerRow == 6)
        }
    }

    @Test func sourceReadsChunks() throws {
        let queue = Mutex(Self.stream("YUV4MPEG2 W4 H2 F30:1", frames: 2, frameBytes: 12).chunks(ofCount: 5))
        let source = Y4MSource { () throws(H264VideoError) -> [UInt8]? in queue.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        #expect(try source.readHeader().width == 4)
        let n = Atomic(0)
        try source.start { _ in n.add(1, ordering: .relaxed) }
        let delivered = n.load(ordering: .relaxed)
        #expect(delivered == 2)
    }

    @Test func truncatedAndMalformedStreams() throws {
        var bytes = Self.stream("YUV4MPEG2 W4 H2", frames: 1, frameBytes: 12)
        bytes.removeLast()
        var parser = Y4MParser()
        parser.append(bytes)
        #expect(try parser.nextFrame() == nil)
        #expect(throws: H264VideoError(.truncated, "")) { try parser.finish() }

        var bad = Y4MParser()
        bad.append(Array("YUV4MPEG2 W4 H2\nFRAMX\n".utf8) + [UInt8](repeating: 0, count: 12))
        #expect(throws: H264VideoError(.invalidArgument, "")) { try bad.nextFrame() }

        var long = Y4MParser()
        long.append([UInt8](repeating: 0x41, count: 5000))
        #expect(throws: H264VideoError(.invalidArgument, "")) { try long.nextFrame() }
    }

    /// A long header line and frames fed a byte at a time: the search for a line's end goes on
    /// where it stopped (it is not started again per chunk), and finds what one chunk finds; a
    /// line too long is refused once it holds ``Y4MParser/maxLineLength`` bytes, not before.
    @Test func longLinesInSmallChunks() throws {
        let extensions = (0..<300).map { "XK\($0)=\($0 * 7)" }
        let header = "YUV4MPEG2 W4 H2 F30:1 " + extensions.joined(separator: " ")
        let bytes = Self.stream(header, frames: 3, frameBytes: 12)
        var whole = Y4MParser()
        whole.append(bytes)
        var expected: [VideoFrame] = []
        while let f = try whole.nextFrame() { expected.append(f) }
        #expect(expected.count == 3 && whole.header?.extensions.count == 300)
        for chunk in [1, 3, 64] {
            let (parser, frames) = try Self.parse(bytes, chunk: chunk)
            #expect(parser.header == whole.header)
            #expect(frames.map { $0.planes.map(\.bytes) } == expected.map { $0.planes.map(\.bytes) }, "chunk \(chunk)")
            #expect(frames.map(\.pts) == [0, 1, 2])
        }
        var long = Y4MParser()
        for n in 1...Y4MParser.maxLineLength {
            long.append([0x41])
            if n < Y4MParser.maxLineLength {
                #expect(try long.nextFrame() == nil)
            } else {
                #expect(throws: H264VideoError(.invalidArgument, "")) { try long.nextFrame() }
            }
        }
    }

    @Test func rawFrames() throws {
        let chunks = Mutex([UInt8](repeating: 9, count: 2 * 4 * 4 * 2 + 3).chunks(ofCount: 10))
        let source = try RawFrameSource(width: 4, height: 2, format: .bgra, frameRate: (30, 1)) { () throws(H264VideoError) -> [UInt8]? in
            chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
        let collected = Mutex<[VideoFrame]>([])
        #expect(throws: H264VideoError(.truncated, "")) { try source.start { f in collected.withLock { $0.append(f) } } }
        let frames = collected.withLock { $0 }
        #expect(frames.count == 2 && frames[1].pts == 1 && frames[0].planes[0].bytesPerRow == 16)
    }
}

extension Array {
    func chunks(ofCount n: Int) -> [[Element]] {
        stride(from: 0, to: count, by: n).map { Array(self[$0..<Swift.min($0 + n, count)]) }
    }
}
