import Testing
import H264
import FLV
@testable import RTMP

/// The protocol pieces without a server: URLs, chunking, handshake.
@Suite struct RTMPProtocolTests {
    @Test func urls() throws {
        let u = try RTMPURL("rtmp://127.0.0.1/live/test")
        #expect(u.host == "127.0.0.1" && u.port == 1935 && u.application == "live" && u.streamName == "test")
        #expect(u.tcURL == "rtmp://127.0.0.1:1935/live")
        let v = try RTMPURL("rtmp://[::1]:1940/app/instance/name?key=1")
        #expect(v.host == "::1" && v.port == 1940 && v.application == "app/instance" && v.streamName == "name?key=1")
        #expect(v.tcURL == "rtmp://[::1]:1940/app/instance")
        for bad in ["http://h/a/b", "rtmp://h/a", "rtmp:///a/b", "rtmp://h:0/a/b", "rtmp://h:99999/a/b", "rtmp://[::1/a/b",
                    "rtmp://user@h/a/b", "rtmp://user:pass@h:1935/a/b"] {
            #expect(throws: RTMPError(.invalidArgument, "")) { try RTMPURL(bad) }
        }
    }

    @Test(arguments: [128, 4096], [0, 0xFF_FFFE, 0xFF_FFFF, 0x7FFF_FFFF])
    func chunkRoundTrip(chunkSize: Int, timestamp: UInt32) throws {
        let messages = [
            RTMPMessage(.video, streamID: 1, timestamp: timestamp, payload: (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }),
            RTMPMessage.command("connect", transaction: 1, [.object([AMF0Property("app", .string("live"))])]),
            RTMPMessage(.video, streamID: 1, timestamp: timestamp &+ 40, payload: []),
            RTMPMessage.control(.setChunkSize, 4096),
        ]
        var w = RTMPChunkWriter()
        w.chunkSize = chunkSize
        var bytes: [UInt8] = []
        for (i, m) in messages.enumerated() { w.write(m, chunkStreamID: UInt8(3 + i % 2), into: &bytes) }
        // Fed in small pieces, as the network delivers them.
        var r = RTMPChunkReader()
        r.chunkSize = chunkSize
        var got: [RTMPMessage] = []
        var i = 0
        while i < bytes.count {
            r.append(Array(bytes[i..<min(i + 777, bytes.count)]))
            i += 777
            while let m = try r.nextMessage() { got.append(m) }
        }
        #expect(got == messages)
    }

    @Test func readerLimits() throws {
        var r = RTMPChunkReader()
        r.maximumMessageSize = 100
        var w = RTMPChunkWriter()
        var bytes: [UInt8] = []
        w.write(RTMPMessage(.video, payload: [UInt8](repeating: 1, count: 101)), chunkStreamID: 6, into: &bytes)
        r.append(bytes)
        #expect(throws: RTMPError(.limitExceeded, "")) { try r.nextMessage() }
        // A type-3 chunk on a chunk stream never opened.
        var r2 = RTMPChunkReader()
        r2.append([0xC5, 1, 2, 3])
        #expect(throws: RTMPError(.protocolViolation, "")) { try r2.nextMessage() }
        w.chunkSize = 128
    }

    @Test func handshake() throws {
        let c0c1 = RTMPHandshake.c0c1(seed: 42)
        #expect(c0c1.count == 1537 && c0c1[0] == 3 && c0c1[1..<9].allSatisfy { $0 == 0 })
        let s1 = [UInt8](repeating: 7, count: 1536)
        #expect(try RTMPHandshake.c2(fromS0S1: ([3] + s1)[...]) == s1)
        #expect(throws: RTMPError(.protocolViolation, "")) { try RTMPHandshake.c2(fromS0S1: ([6] + s1)[...]) }
    }

    /// Pseudo-random bytes from a "server": typed errors or partial messages, never a trap.
    @Test func randomInputNeverTraps() throws {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var errors = 0
        for _ in 0..<200 {
            var r = RTMPChunkReader()
            var bytes: [UInt8] = []
            for _ in 0..<512 {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                bytes.append(UInt8(truncatingIfNeeded: x))
            }
            r.append(bytes)
            while true {
                do { guard try r.nextMessage() != nil else { break } } catch { errors += 1; break }
            }
        }
        // Random bytes are mostly not a valid chunk stream: typed errors, not silence.
        #expect(errors >= 100, "\(errors) of 200 inputs refused")
    }

    /// An Abort Message drops the partial message; the chunk stream then starts afresh.
    @Test func abortDropsPartialMessage() throws {
        let w = RTMPChunkWriter()
        var first: [UInt8] = []
        w.write(RTMPMessage(.video, streamID: 1, payload: [UInt8](repeating: 1, count: 300)), chunkStreamID: 6, into: &first)
        var second: [UInt8] = []
        let message = RTMPMessage(.video, streamID: 1, timestamp: 40, payload: [2, 3])
        w.write(message, chunkStreamID: 6, into: &second)
        var r = RTMPChunkReader()
        r.append(Array(first.prefix(12 + 128)))  // the first chunk only
        #expect(try r.nextMessage() == nil)
        r.abort(chunkStreamID: 6)
        r.append(second)
        #expect(try r.nextMessage() == message)
    }
}
