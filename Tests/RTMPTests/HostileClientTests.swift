import Foundation
import Synchronization
import Testing
import TestSupport
import FLV
import H264
import MediaSupport
@testable import RTMP

/// Clients that misbehave on purpose against `RTMPServer` on a loopback port (as
/// `HostileServerTests` does for the client): each is ended within its deadline plus a
/// second, the server's bytes held stay within their bound, and a well-behaved publisher on the
/// same server keeps flowing meanwhile.
@Suite struct HostileClientTests {
    static let deadline: Duration = .seconds(1)
    static let perConnection = 256 << 10
    static func options(_ configure: (inout RTMPServer.Options) -> Void = { _ in }) -> RTMPServer.Options {
        var options = RTMPServer.Options(maximumConnections: 8, maximumMessageSize: 128 << 10,
                                         maximumBytesPerConnection: perConnection, maximumTotalBytes: 1 << 20,
                                         maximumChunkStreams: 16, handshakeTimeout: deadline, idleTimeout: deadline)
        options.authorize = { _ in .allow }
        configure(&options)
        return options
    }

    // MARK: A raw client

    /// A client that speaks RTMP by hand: the socket, the handshake, a session for its messages.
    final class RawClient {
        let socket: TCPSocket
        var session = RTMPSession()

        init(port: Int) throws {
            socket = try TCPSocket.connect(to: "127.0.0.1", port: port, deadline: .after(.seconds(2)))
        }

        func send(_ bytes: [UInt8]) throws { try socket.send(bytes, deadline: .after(.seconds(2))) }

        func handshake() throws {
            try send(RTMPHandshake.c0c1(seed: 7))
            let s0s1s2 = try socket.receive(exactly: 3073, deadline: .after(.seconds(2)))
            try send(Array(s0s1s2[1..<1537]))
        }

        func flush() throws { try send(session.takeOutgoing()) }

        /// Waits for a command named `name` (or `onStatus` with that code).
        @discardableResult
        func waitFor(_ name: String) throws -> [AMF0Value] {
            let deadline = Deadline.after(.seconds(2))
            while true {
                while let values = try session.nextCommand() {
                    if values.first?.string == name || values.dropFirst(3).first?["code"]?.string == name { return values }
                }
                session.receive(try socket.receive(maximum: 65536, deadline: deadline)[...])
            }
        }

        /// Handshake, connect, createStream, publish `name` (stream 1).
        func publish(_ name: String) throws {
            try handshake()
            session.send(.command("connect", transaction: 1, [.object([AMF0Property("app", .string("live"))])]), on: 3)
            try flush()
            try waitFor("_result")
            session.send(.command("createStream", transaction: 2, [.null]), on: 3)
            session.send(.command("publish", transaction: 0, [.null, .string(name), .string("live")], streamID: 1), on: 3)
            try flush()
            try waitFor("NetStream.Publish.Start")
        }

        /// Reads (and drops) until the server closes the connection; returns the seconds it took.
        func secondsUntilClosed(limit: Duration = .seconds(10)) -> Double {
            let start = ContinuousClock.now
            let deadline = Deadline.after(limit)
            while !deadline.hasPassed {
                do { _ = try socket.receive(maximum: 65536, deadline: deadline) } catch { break }
            }
            return HostileClientTests.seconds(since: start)
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = start.duration(to: .now)
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    // MARK: A well-behaved stream beside

    /// A publisher that sends a small frame every 10 ms on `live/good`, and a consumer that
    /// counts what arrives; the other publishes the server accepts are kept for the test.
    final class GoodFlow: @unchecked Sendable {
        let received = Atomic(0)
        /// Set to stop the sending thread.
        final class Flag: Sendable {
            let value = Atomic(false)
        }
        private let stopped = Flag()
        private let lock = NSLock()
        private var others: [RTMPIngestStream] = []
        private var consumer: Task<Void, Never>?

        /// An encoder's avcC and one GOP of its samples, made once.
        static let stream: (avcC: [UInt8], samples: [FLVVideoSample]) = {
            guard let (frames, sets) = try? IngestServerTests.encodedFrames(10, width: 64, height: 64) else { return ([], []) }
            var builder = FLVSampleBuilder(parameterSets: sets)
            var avcC: [UInt8] = []
            var samples: [FLVVideoSample] = []
            for frame in frames {
                guard let built = try? builder.sample(frame) else { continue }
                if let a = built.avcC, avcC.isEmpty { avcC = a }
                samples.append(built.sample)
            }
            return (avcC, samples)
        }()

        /// Makes the connection usable from the sending thread.
        final class Box: @unchecked Sendable {
            let connection: RTMPConnection
            init(_ connection: RTMPConnection) { self.connection = connection }
        }

        init(_ server: RTMPServer) throws {
            let (avcC, samples) = Self.stream
            let connection = try RTMPConnection(url: try RTMPURL("rtmp://127.0.0.1:\(server.localPort)/live/good"))
            try connection.publish()
            try connection.sendVideo(.sequenceHeader(avcC[...]), timestamp: 0)
            let box = Box(connection)
            consumer = Task { [self] in
                var streams = server.publishedStreams.makeAsyncIterator()
                guard let good = try? await streams.next() else { return }
                Task { [self] in
                    while let other = try? await streams.next() { lock.withLock { others.append(other) } }
                }
                do {
                    for try await event in good { if case .video = event { received.add(1, ordering: .relaxed) } }
                } catch {}
            }
            let stopped = self.stopped
            Thread.detachNewThread {
                var time: Int64 = 0
                var index = 0
                while !stopped.value.load(ordering: .relaxed), !samples.isEmpty {
                    var sample = samples[index % samples.count]
                    sample.pts = sample.pts - sample.dts + time
                    sample.dts = time
                    guard let frame = try? FLVVideoPacket.frame(sample),
                          (try? box.connection.sendVideo(frame, timestamp: UInt32(time))) != nil else { break }
                    time += 10
                    index += 1
                    Thread.sleep(forTimeInterval: 0.01)
                }
                try? box.connection.close()
            }
        }

        var count: Int { received.load(ordering: .relaxed) }

        /// The publishes after the good one, waiting up to a second for `n`.
        func otherPublishes(_ n: Int) async -> [RTMPIngestStream] {
            for _ in 0..<100 {
                let list = lock.withLock { others }
                if list.count >= n { return list }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return lock.withLock { others }
        }

        func stop() { stopped.value.store(true, ordering: .relaxed) }
    }

    /// Runs `hostile` (which returns the seconds until the server closed it) beside a good
    /// stream; checks the bound on time and bytes, and that the good stream flowed meanwhile.
    /// The time bound is the server's 1 s deadline with room for a loaded machine, and below the
    /// 10 s a client waits before it gives up itself: a client the server never ends fails it.
    static func check(_ options: RTMPServer.Options = options(), bound: Double = 8.0,
                      _ hostile: (RTMPServer, GoodFlow) async throws -> Double) async throws {
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: options)
        defer { server.close() }
        let good = try GoodFlow(server)
        defer { good.stop() }
        for _ in 0..<200 where good.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let before = good.count
        let seconds = try await hostile(server, good)
        #expect(seconds < bound, "the hostile client was ended after \(seconds) s")
        try await Task.sleep(for: .milliseconds(100))
        #expect(good.count > before, "the good stream did not flow (\(before) -> \(good.count))")
        #expect(server.statistics.peakBytesHeld <= 2 * (options.maximumBytesPerConnection + (64 << 10)),
                "peak \(server.statistics.peakBytesHeld) bytes held")
    }

    // MARK: The hostile clients

    /// Runs `body` on a thread of its own (a client that sleeps between bytes must not hold,
    /// or wait for, a thread of the cooperative pool).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Sends the handshake one byte every 50 ms: closed at the handshake deadline.
    @Test(.timeLimit(.minutes(5)))
    func slowLorisHandshake() async throws {
        try await Self.check { server, _ in
            let port = server.localPort
            return try await Self.onThread {
                let client = try RawClient(port: port)
                let start = ContinuousClock.now
                for byte in RTMPHandshake.c0c1(seed: 1) where !client.socket.isReadable && Self.seconds(since: start) < 3 {
                    guard (try? client.send([byte])) != nil else { break }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                _ = client.secondsUntilClosed()
                return Self.seconds(since: start)
            }
        }
    }

    /// After the handshake, keeps sending acknowledgements and unknown commands every 50 ms,
    /// never publishing: closed at the deadline from accept (those keep nothing alive).
    @Test(.timeLimit(.minutes(5)))
    func slowLorisCommands() async throws {
        try await Self.check { server, _ in
            let port = server.localPort
            return try await Self.onThread {
                let client = try RawClient(port: port)
                let start = ContinuousClock.now
                try client.handshake()
                client.session.send(.command("connect", transaction: 1, [.object([AMF0Property("app", .string("live"))])]), on: 3)
                try client.flush()
                try client.waitFor("_result")
                while Self.seconds(since: start) < 3 && !client.socket.isReadable {
                    client.session.send(.control(.acknowledgement, 1), on: 2)
                    client.session.send(.command("getStreamLength", transaction: 0, [.null]), on: 3)
                    guard (try? client.flush()) != nil else { break }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                _ = client.secondsUntilClosed()
                return Self.seconds(since: start)
            }
        }
    }

    /// A huge chunk size and a message header claiming 16 MiB (the 24-bit maximum): refused
    /// from the header, before any of it is held.
    @Test(.timeLimit(.minutes(5)))
    func hugeMessageHeader() async throws {
        try await Self.check { server, _ in
            let client = try RawClient(port: server.localPort)
            try client.handshake()
            let start = ContinuousClock.now
            client.session.send(.control(.setChunkSize, 0x7FFF_FFFF), on: 2)
            var out = client.session.takeOutgoing()
            out += [0x04, 0, 0, 0, 0xFF, 0xFF, 0xFF, 9, 1, 0, 0, 0]  // fmt 0, csid 4, length 0xFFFFFF, video
            out += [UInt8](repeating: 0x17, count: 60_000)
            try? client.send(out)
            let closed = client.secondsUntilClosed()
            #expect(server.statistics.peakBytesHeld < 128 << 10)
            return max(closed, Self.seconds(since: start))
        }
    }

    /// A new chunk stream per message, each left incomplete: ended at the chunk-stream limit,
    /// its bookkeeping and partial messages within the per-connection bound.
    @Test(.timeLimit(.minutes(5)))
    func chunkStreamChurn() async throws {
        try await Self.check { server, _ in
            let client = try RawClient(port: server.localPort)
            try client.handshake()
            let start = ContinuousClock.now
            var out: [UInt8] = []
            for csid in 0..<2000 {
                let id = 64 + csid  // the 3-byte form: 64 + (low) + (high << 8)
                out += [0x01, UInt8((id - 64) & 0xFF), UInt8((id - 64) >> 8), 0, 0, 0, 0, 0x10, 0, 9, 1, 0, 0, 0]
                out += [UInt8](repeating: 0, count: 128)  // 128 of the 4096 bytes announced
            }
            try? client.send(out)
            _ = client.secondsUntilClosed()
            #expect(server.statistics.peakBytesHeld <= Self.perConnection + (64 << 10) + 300_000)
            return Self.seconds(since: start)
        }
    }

    /// A publisher that floods acknowledgements and nothing else: acknowledgements are not
    /// progress, so it is closed at the idle deadline, and nothing is sent back for them.
    @Test(.timeLimit(.minutes(5)))
    func acknowledgementFlood() async throws {
        try await Self.check { server, _ in
            let client = try RawClient(port: server.localPort)
            try client.publish("flood")
            let start = ContinuousClock.now
            var burst: [UInt8] = []
            var w = RTMPChunkWriter()
            w.chunkSize = 128
            for i in 0..<1000 { w.write(.control(.acknowledgement, UInt32(i)), chunkStreamID: 2, into: &burst) }
            var received = 0
            while Self.seconds(since: start) < 4 {
                do { try client.send(burst) } catch { break }
                while client.socket.isReadable {
                    guard let bytes = try? client.socket.receive(maximum: 65536, deadline: .now) else { break }
                    received += bytes.count
                }
            }
            let seconds = Self.seconds(since: start)
            #expect(received < 4096, "the server answered an acknowledgement flood with \(received) bytes")
            return seconds
        }
    }

    /// A publisher that stops in the middle of a video message and stays silent: its publish
    /// ends with `timedOut` at the idle deadline; one that closes mid-message ends with
    /// `connectionClosed`.
    @Test(.timeLimit(.minutes(5)))
    func publisherStopsMidMessage() async throws {
        try await Self.check { server, good in
            let silent = try RawClient(port: server.localPort)
            try silent.publish("silent")
            try silent.send([0x06, 0, 0, 0, 0, 0x10, 0, 9, 1, 0, 0, 0] + [UInt8](repeating: 0x17, count: 100))
            let closed = silent.secondsUntilClosed()

            let closing = try RawClient(port: server.localPort)
            try closing.publish("closing")
            try closing.send([0x06, 0, 0, 0, 0, 0x10, 0, 9, 1, 0, 0, 0] + [UInt8](repeating: 0x17, count: 100))
            closing.socket.close()

            let others = await good.otherPublishes(2)
            #expect(others.count == 2)
            for (ingest, code) in zip(others, [RTMPError.Code.timedOut, .connectionClosed]) {
                var failure: (any Error)?
                do { for try await _ in ingest {} } catch { failure = error }
                #expect((failure as? RTMPError)?.code == code, "\(ingest.request.streamName): \(String(describing: failure))")
            }
            return closed
        }
    }

    /// More connections than the limit: the extra one is closed at once.
    @Test(.timeLimit(.minutes(5)))
    func connectionLimit() async throws {
        try await Self.check(Self.options { $0.maximumConnections = 3 }) { server, _ in
            let a = try RawClient(port: server.localPort)
            let b = try RawClient(port: server.localPort)
            let start = ContinuousClock.now
            let c = try RawClient(port: server.localPort)
            let closed = c.secondsUntilClosed()
            #expect(closed < 8, "closed after \(closed) s: the server did not close the extra connection")
            #expect(server.statistics.connectionsRefused == 1)
            _ = (a, b)
            return Self.seconds(since: start)
        }
    }

    /// Connections that each stay under their own bound but together pass the server's total:
    /// the one that passes it is ended.
    @Test(.timeLimit(.minutes(5)))
    func totalBytesBound() async throws {
        let options = Self.options { $0.maximumTotalBytes = 400 << 10 }
        try await Self.check(options) { server, _ in
            var clients: [RawClient] = []
            let start = ContinuousClock.now
            let before = server.statistics.connections
            for _ in 0..<4 {
                let client = try RawClient(port: server.localPort)
                try client.handshake()
                // 200 KiB of a 256 KiB bound, on 2 chunk streams, each message incomplete.
                var out: [UInt8] = []
                var w = RTMPChunkWriter()
                w.chunkSize = 100 << 10
                w.write(RTMPMessage(.video, streamID: 1, payload: [UInt8](repeating: 0x17, count: 120 << 10)), chunkStreamID: 6, into: &out)
                w.write(RTMPMessage(.audio, streamID: 1, payload: [UInt8](repeating: 0xAF, count: 120 << 10)), chunkStreamID: 4, into: &out)
                try? client.send(Array(out.prefix(100 << 10 + 12)) + Array(out[(120 << 10 + 12 + 1)...].prefix(100 << 10 + 12)))
                clients.append(client)
            }
            // Ended by the server: the count of connections falls (no clock in the judgement; the
            // wait is bounded for a server that never ends one).
            for _ in 0..<1000 where server.statistics.connections >= before + clients.count {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.statistics.connections < before + clients.count, "no connection was ended at the total bound")
            #expect(server.statistics.peakBytesHeld <= (400 << 10) + (200 << 10))
            return Self.seconds(since: start)
        }
    }
}
