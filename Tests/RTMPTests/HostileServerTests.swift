import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TestSupport
import FLV
import H264
@testable import RTMP

/// A local RTMP server that misbehaves on purpose, on a loopback port: the client must answer
/// each behaviour with a typed error within the operation's deadline plus a second, whatever
/// the server sends, and within its memory limits.
@Suite struct HostileServerTests {
    /// A one-connection TCP server whose behaviour after accepting is `serve(fd)`.
    final class Server: @unchecked Sendable {
        /// Set when the test is done: the serving loop ends.
        final class Flag: @unchecked Sendable {
            private let lock = NSLock()
            private var value = false
            func set() { lock.withLock { value = true } }
            var isSet: Bool { lock.withLock { value } }
        }

        let port: UInt16
        private let listener: Int32
        private let done = Flag()

        init(_ serve: @escaping @Sendable (_ fd: Int32, _ shouldStop: @escaping @Sendable () -> Bool) -> Void) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    bind(fd, sa, len) == 0 && listen(fd, 4) == 0 && getsockname(fd, sa, &len) == 0
                }
            }
            guard ok else { throw RTMPError(.io, "cannot listen") }
            listener = fd
            port = UInt16(bigEndian: addr.sin_port)
            let flag = done
            Thread.detachNewThread {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                serve(client, { flag.isSet })
                close(client)
            }
        }

        func finish() {
            done.set()
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }

        /// Reads exactly `n` bytes (or fewer if the peer goes away).
        static func read(_ fd: Int32, _ n: Int) -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while out.count < n {
                let k = recv(fd, &buffer, min(buffer.count, n - out.count), 0)
                if k <= 0 { break }
                out += buffer[0..<k]
            }
            return out
        }

        /// Sends all of `bytes`; false when the peer has gone.
        @discardableResult
        static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let k = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if k <= 0 { return false }
                offset += k
            }
            return true
        }

        /// The handshake, then the answers to `connect`, `createStream` and `publish` sent at
        /// once without reading the commands: the client is publishing stream 1.
        static func acceptPublishing(_ fd: Int32, writer w: inout RTMPChunkWriter) {
            handshake(fd)
            var out: [UInt8] = []
            let ok: [AMF0Property] = [AMF0Property("level", .string("status")),
                                      AMF0Property("code", .string("NetConnection.Connect.Success"))]
            w.write(.command("_result", transaction: 2, [.null, .object(ok)]), chunkStreamID: 3, into: &out)
            w.write(.command("_result", transaction: 5, [.null, .number(1)]), chunkStreamID: 3, into: &out)
            w.write(.command("onStatus", transaction: 0, [.null, .object([AMF0Property("level", .string("status")),
                                                                          AMF0Property("code", .string("NetStream.Publish.Start"))])]),
                    chunkStreamID: 5, into: &out)
            send(fd, out)
        }

        /// The server side of the handshake: reads C0 and C1, sends S0, S1 and S2, reads C2.
        static func handshake(_ fd: Int32) {
            let c0c1 = read(fd, 1537)
            send(fd, [3] + [UInt8](repeating: 0, count: 1536) + Array(c0c1.dropFirst()))
            _ = read(fd, 1536)
        }
    }

    static let deadline = 1000
    static let options = RTMPConnection.Options(connectTimeout: .seconds(1), timeout: .milliseconds(deadline))

    /// Connects to `server`; returns the error and the time it took.
    static func connect(_ server: Server) -> (error: RTMPError?, seconds: Double) {
        let start = ContinuousClock.now
        var caught: RTMPError?
        do {
            _ = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.port)/live/test"), options: options)
        } catch {
            caught = error
        }
        let d = start.duration(to: .now)
        return (caught, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    /// The handshake, then Set Chunk Size 1 and a 3 MiB message in one-byte chunks (6 MB on the
    /// wire), and no answer to `connect`. Reassembly used to copy the message so far for every
    /// chunk (hours for this one); now it is linear and the connect deadline holds.
    @Test func chunkSizeOneAndALargeMessage() throws {
        let server = try Server { fd, shouldStop in
            Server.handshake(fd)
            var w = RTMPChunkWriter()
            var out: [UInt8] = []
            w.write(.control(.setChunkSize, 1), chunkStreamID: 2, into: &out)
            w.chunkSize = 1
            w.write(RTMPMessage(.video, streamID: 1, payload: [UInt8](repeating: 0x17, count: 3 << 20)), chunkStreamID: 6, into: &out)
            var i = 0
            while i < out.count && !shouldStop() {
                guard Server.send(fd, Array(out[i..<min(i + 65536, out.count)])) else { return }
                i += 65536
            }
        }
        defer { server.finish() }
        let (error, seconds) = Self.connect(server)
        #expect(error?.code == .timedOut || error?.code == .connectionClosed, "\(String(describing: error))")
        #expect(seconds < 2 * Double(Self.deadline) / 1000 + 1, "took \(seconds) s")
    }

    /// The handshake, then Acknowledgement messages as fast as the socket takes them, forever:
    /// the connect deadline is checked whatever arrives.
    @Test func endlessAcknowledgements() throws {
        let server = try Server { fd, shouldStop in
            Server.handshake(fd)
            var ack: [UInt8] = []
            let w = RTMPChunkWriter()
            for k in 0..<2048 { w.write(.control(.acknowledgement, UInt32(k)), chunkStreamID: 2, into: &ack) }
            while !shouldStop() { guard Server.send(fd, ack) else { return } }
        }
        defer { server.finish() }
        let (error, seconds) = Self.connect(server)
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(seconds < 2 * Double(Self.deadline) / 1000 + 1, "took \(seconds) s")
    }

    /// A well-behaved server that sends a ping once the stream is published:
    /// `serviceIncoming()` reads it without waiting and answers it.
    @Test func pingIsAnsweredWhilePublishing() throws {
        let answered = Server.Flag()
        let server = try Server { fd, shouldStop in
            var w = RTMPChunkWriter()
            Server.acceptPublishing(fd, writer: &w)
            usleep(200_000)
            var out: [UInt8] = []
            w.chunkSize = 128
            w.write(RTMPMessage(.userControl, payload: [0, 6, 0, 0, 0, 42]), chunkStreamID: 2, into: &out)
            Server.send(fd, out)
            // The ping response: a User Control message (type 4) of event 7 with the same time.
            let response: [UInt8] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 7, 0, 0, 0, 42]
            var got: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !shouldStop() && !answered.isSet {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 50) > 0 else { continue }
                let k = recv(fd, &buffer, buffer.count, 0)
                if k <= 0 { return }
                got += buffer[0..<k]
                if got.indices.contains(where: { got[$0...].starts(with: response) }) { answered.set() }
            }
            while !shouldStop() { usleep(10_000) }  // stay connected until the test is done
        }
        defer { server.finish() }
        let connection = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.port)/live/test"), options: Self.options)
        try connection.publish()
        for _ in 0..<40 where !answered.isSet {
            usleep(25_000)
            try connection.serviceIncoming()
        }
        #expect(answered.isSet)
    }

    /// A server that accepts the TCP connection but never answers the handshake: the
    /// publisher's creation fails with `timedOut`.
    @Test func silentServerTimesOut() throws {
        let server = try Server { _, shouldStop in
            while !shouldStop() { usleep(10_000) }
        }
        defer { server.finish() }
        let options = RTMPPublisher.Options(connection: .init(connectTimeout: .seconds(1), timeout: .milliseconds(300)))
        #expect(throws: RTMPError(.timedOut, "")) {
            try RTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/test", options: options)
        }
    }

    /// S0 and S1 a byte every 2 ms: the handshake would take 6 s; its deadline is 1 s.
    @Test func handshakeThatNeverEnds() throws {
        let server = try Server { fd, shouldStop in
            _ = Server.read(fd, 1537)
            var sent = 0
            while !shouldStop() && sent < 20_000 {
                guard Server.send(fd, [sent == 0 ? 3 : 0]) else { return }
                sent += 1
                usleep(2000)
            }
        }
        defer { server.finish() }
        let (error, seconds) = Self.connect(server)
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(seconds < Double(Self.deadline) / 1000 + 1, "took \(seconds) s")
    }

    /// Three chunk streams, each 3 MiB into a 4 MiB message: past 8 MiB of incomplete messages
    /// the client stops with a typed error instead of holding them (60 such streams held 235 MB).
    @Test func incompleteMessagesOnManyChunkStreams() throws {
        let server = try Server { fd, shouldStop in
            Server.handshake(fd)
            var w = RTMPChunkWriter()
            var out: [UInt8] = []
            w.write(.control(.setChunkSize, 65536), chunkStreamID: 2, into: &out)
            w.chunkSize = 65536
            for csid in UInt8(4)...UInt8(6) {
                var message: [UInt8] = []
                w.write(RTMPMessage(.video, streamID: 1, payload: [UInt8](repeating: 1, count: 4 << 20)), chunkStreamID: csid, into: &message)
                out += message.prefix(12 + 65536 + 47 * (1 + 65536))  // 48 whole chunks: 3 MiB of 4
            }
            Server.send(fd, out)
            while !shouldStop() { usleep(10_000) }
        }
        defer { server.finish() }
        let (error, seconds) = Self.connect(server)
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(seconds < 2 * Double(Self.deadline) / 1000 + 1, "took \(seconds) s")
    }

    /// The reader's limit on chunk streams, without a socket: 65 chunk streams each opened
    /// with one byte of a 200-byte message.
    @Test func chunkReaderLimits() throws {
        var opened: [UInt8] = []
        for k in 0..<65 {
            opened += [0x00, UInt8(k)]  // fmt 0, chunk stream 64 + k (two-byte form)
            opened += [0, 0, 0, 0, 0, 200, 9, 1, 0, 0, 0]  // timestamp 0, length 200, video, stream 1
            opened += [0xAA]  // one byte of payload (chunk size 1)
        }
        var r = RTMPChunkReader()
        r.chunkSize = 1
        r.append(opened)
        #expect(throws: RTMPError(.limitExceeded, "")) { while try r.nextMessage() != nil {} }
        #expect(r.bufferedByteCount == 64)
    }
}
