import FLV
import H264
import MediaSupport

/// A synchronous RTMP publishing session over one TCP connection: handshake, `connect`,
/// `createStream`, `publish`, then FLV video and metadata messages, then a clean
/// `FCUnpublish`/`deleteStream`.
///
/// Every operation has one deadline that holds whatever the server sends, checked each time
/// round the loops that read and while writing: the TCP connection (``Options/connectTimeout``), then the
/// handshake, `connect`, `createStream`, `publish`, each message sent and the goodbye
/// (``Options/timeout`` each). A server that floods the connection, sends a message
/// one byte at a time, or never finishes the handshake gets ``RTMPError/Code/timedOut`` when
/// the operation's time is up. What it sends is parsed by an `RTMPSession` within the
/// `RTMPChunkReader` limits.
///
/// Not thread-safe: one thread drives it (``RTMPPublisher`` runs one on its own queue).
public final class RTMPConnection {
    /// Connection settings.
    public struct Options: Sendable, Hashable {
        /// Time allowed for the TCP connection (every address the host name resolves to).
        public var connectTimeout: Duration
        /// Time allowed for each later operation (the handshake, `connect`, `createStream`,
        /// `publish`, each message sent, the goodbye).
        public var timeout: Duration
        /// The chunk size we announce with Set Chunk Size and send with (128...65536).
        public var chunkSize: Int
        /// The `flashVer` of `connect`.
        public var flashVersion: String
        /// Send `releaseStream` and `FCPublish` before `publish` (as FFmpeg and OBS do).
        public var sendFCPublish: Bool

        /// Creates options.
        /// - Parameters:
        ///   - connectTimeout: time allowed for the TCP connection (5 s by default).
        ///   - timeout: time allowed for each later operation (5 s by default).
        ///   - chunkSize: the chunk size announced and sent with, 128...65536.
        ///   - flashVersion: the `flashVer` of `connect`.
        ///   - sendFCPublish: send `releaseStream` and `FCPublish` before `publish`.
        public init(connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(5), chunkSize: Int = 4096,
                    flashVersion: String = "FMLE/3.0 (compatible; swift-h264)", sendFCPublish: Bool = true) {
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.chunkSize = chunkSize
            self.flashVersion = flashVersion
            self.sendFCPublish = sendFCPublish
        }
    }

    /// Where this connection publishes.
    public let url: RTMPURL
    /// The settings.
    public let options: Options
    /// The message stream id the server gave in `createStream`, 0 before.
    public private(set) var streamID: UInt32 = 0
    /// Bytes sent so far (including chunk headers).
    public private(set) var bytesSent: Int64 = 0
    /// Bytes received so far.
    public var bytesReceived: Int64 { handshakeBytes &+ session.bytesReceived }

    private let socket: TCPSocket
    /// The socket's operations, their failures as `RTMPError`s.
    private var transport: Transport { Transport(socket: socket) }
    private var session = RTMPSession()
    private var handshakeBytes: Int64 = 0
    private var transaction: Double = 1
    private var publishing = false

    /// The most bytes ``serviceIncoming()`` reads in one call: a server that keeps sending
    /// cannot hold the caller there.
    static let serviceBudget = 256 << 10

    /// Connects, handshakes and sends `connect` for `url`'s application; returns once the
    /// server answered `_result` (NetConnection.Connect.Success).
    /// - Throws: ``RTMPError/Code/connectionRefused``, ``RTMPError/Code/timedOut``,
    ///   ``RTMPError/Code/connectionRejected`` (a `_error` reply, or the server closing the
    ///   connection in reply to `connect`, which is how nginx-rtmp refuses an unknown
    ///   application), ``RTMPError/Code/protocolViolation``, ``RTMPError/Code/limitExceeded``,
    ///   ``RTMPError/Code/io``; ``RTMPError/Code/invalidArgument`` for a chunk size outside
    ///   128...65536.
    public convenience init(url: RTMPURL, options: Options = Options()) throws(RTMPError) {
        try self.init(url: url, options: options, interrupt: nil)
    }

    /// Connects as ``init(url:options:)`` does; every wait also watches `interrupt`, so firing
    /// it stops the connection in progress with ``RTMPError/Code/cancelled``.
    init(url: RTMPURL, options: Options, interrupt: Interrupt?) throws(RTMPError) {
        self.url = url
        self.options = options
        guard (128...65536).contains(options.chunkSize) else {
            throw RTMPError.invalid(.invalidArgument, "RTMP chunk size \(options.chunkSize) outside 128...65536")
        }
        socket = try RTMPError.mapping { () throws(SocketError) in
            try TCPSocket.connect(to: url.host, port: Int(url.port), deadline: .after(options.connectTimeout), interrupt: interrupt)
        }
        try handshake(deadline: .after(options.timeout))
        let deadline = Deadline.after(options.timeout)
        session.send(.control(.setChunkSize, UInt32(options.chunkSize)), on: RTMPChunkStream.control)
        session.chunkSize = options.chunkSize
        let info: [AMF0Property] = [
            AMF0Property("app", .string(url.application)),
            AMF0Property("type", .string("nonprivate")),
            AMF0Property("flashVer", .string(options.flashVersion)),
            AMF0Property("tcUrl", .string(url.tcURL)),
        ]
        let reply: [AMF0Value]
        do {
            reply = try call("connect", [.object(info)], deadline: deadline)
        } catch where error.code == .connectionClosed {
            throw RTMPError.invalid(.connectionRejected,
                                    "the server closed the connection in reply to connect (unknown application '\(url.application)'?)")
        }
        let code = reply.dropFirst(3).first?["code"]?.string ?? ""
        guard code == "NetConnection.Connect.Success" || code.isEmpty else {
            throw RTMPError.invalid(.connectionRejected, "connect answered \(code)")
        }
        session.send(.control(.windowAcknowledgementSize, 2_500_000), on: RTMPChunkStream.control)
        try flush(deadline: deadline)
    }

    deinit { socket.close() }

    /// Creates a stream and publishes it live under `url`'s stream name; returns once the
    /// server answered onStatus NetStream.Publish.Start. Two operations, each with its
    /// deadline: `createStream` (with `releaseStream` and `FCPublish`), then `publish`.
    /// - Throws: ``RTMPError/Code/connectionRejected`` for an error status (a name already in
    ///   use, a refused publish), ``RTMPError/Code/timedOut``, and the errors of the transport.
    public func publish() throws(RTMPError) {
        let name = AMF0Value.string(url.streamName)
        var deadline = Deadline.after(options.timeout)
        if options.sendFCPublish {
            session.send(.command("releaseStream", transaction: nextTransaction(), [.null, name]), on: RTMPChunkStream.command)
            session.send(.command("FCPublish", transaction: nextTransaction(), [.null, name]), on: RTMPChunkStream.command)
        }
        let created = try call("createStream", [.null], deadline: deadline)
        guard let id = created.dropFirst(3).first?.number, let sid = UInt32(exactly: id) else {
            throw RTMPError.invalid(.protocolViolation, "createStream answered without a stream id")
        }
        streamID = sid
        deadline = .after(options.timeout)
        session.send(.command("publish", transaction: 0, [.null, name, .string("live")], streamID: sid), on: RTMPChunkStream.command)
        try flush(deadline: deadline)
        while true {
            let values = try nextCommand(deadline: deadline)
            guard values.first?.string == "onStatus" else { continue }
            let info = values.dropFirst(3).first
            let code = info?["code"]?.string ?? ""
            if info?["level"]?.string == "error" || code.hasSuffix("BadName") || code.hasSuffix("Failed") {
                throw RTMPError.invalid(.connectionRejected, "publish '\(url.streamName)' answered \(code): \(info?["description"]?.string ?? "")")
            }
            if code == "NetStream.Publish.Start" { break }
        }
        publishing = true
    }

    /// Sends `@setDataFrame onMetaData` with the metadata.
    public func sendMetadata(_ metadata: FLVMetadata) throws(RTMPError) {
        let payload = AMF0.encode([.string("@setDataFrame"), .string("onMetaData"), metadata.ecmaArray])
        session.send(RTMPMessage(.dataAMF0, streamID: streamID, payload: payload), on: RTMPChunkStream.data)
        try flush(deadline: .after(options.timeout))
    }

    /// Sends one FLV video tag body (a sequence header, a frame, an end of sequence) as a
    /// video message at `timestamp` milliseconds (the DTS).
    public func sendVideo(_ packet: FLVVideoPacket, timestamp: UInt32) throws(RTMPError) {
        session.send(RTMPMessage(.video, streamID: streamID, timestamp: timestamp, payload: packet.bytes), on: RTMPChunkStream.video)
        try flush(deadline: .after(options.timeout))
        try serviceIncoming()
    }

    /// Sends an audio tag or a data (script) tag's body as an audio or data message at the
    /// tag's timestamp (milliseconds), as it is: the body is not read (a restream's audio and
    /// data, `RTMPIngestStream.Event.tag`).
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a tag of another type (video goes
    ///   through ``sendVideo(_:timestamp:)``), and the errors of the transport.
    public func sendTag(_ tag: FLVTag) throws(RTMPError) {
        let kind: RTMPMessage.Kind, chunkStream: UInt8
        switch tag.type {
        case .audio: (kind, chunkStream) = (.audio, RTMPChunkStream.audio)
        case .script: (kind, chunkStream) = (.dataAMF0, RTMPChunkStream.data)
        default: throw RTMPError.invalid(.invalidArgument, "an FLV tag of type \(tag.type) is not sent as a tag (audio or script only)")
        }
        session.send(RTMPMessage(kind, streamID: streamID, timestamp: tag.timestamp, payload: Array(tag.body)), on: chunkStream)
        try flush(deadline: .after(options.timeout))
        try serviceIncoming()
    }

    /// Handles what the server sent meanwhile (acknowledgements, pings, chunk size changes)
    /// without waiting, reading at most a bounded number of bytes.
    /// - Throws: ``RTMPError/Code/connectionClosed`` when the server has closed the connection;
    ///   ``RTMPError/Code/connectionRejected`` when it stopped the stream.
    public func serviceIncoming() throws(RTMPError) {
        var budget = Self.serviceBudget
        while budget > 0 && socket.isReadable {
            let bytes: [UInt8]
            do throws(RTMPError) {
                bytes = try transport.receive(maximum: min(64 * 1024, budget), deadline: .now)
            } catch where error.code == .timedOut {
                return  // a spurious wake-up: nothing to read after all
            }
            budget &-= bytes.count  // <= budget
            session.receive(bytes[...])
            while let values = try session.nextCommand() {
                if values.first?.string == "onStatus", values.dropFirst(3).first?["level"]?.string == "error" {
                    let code = values.dropFirst(3).first?["code"]?.string ?? ""
                    throw RTMPError.invalid(.connectionRejected, "the server stopped the stream: \(code)")
                }
            }
        }
        try flush(deadline: .after(options.timeout))
    }

    /// Ends publishing with `FCUnpublish` and `deleteStream`, then closes the connection; one
    /// deadline covers the goodbye. Errors while saying goodbye are thrown after the socket is
    /// closed.
    public func close() throws(RTMPError) {
        defer { socket.close() }
        guard publishing else { return }
        publishing = false
        let deadline = Deadline.after(options.timeout)
        let name = AMF0Value.string(url.streamName)
        if options.sendFCPublish {
            session.send(.command("FCUnpublish", transaction: nextTransaction(), [.null, name]), on: RTMPChunkStream.command)
        }
        session.send(.command("deleteStream", transaction: nextTransaction(), [.null, .number(Double(streamID))]),
                     on: RTMPChunkStream.command)
        try flush(deadline: deadline)
        socket.shutdownAndDrain(deadline: deadline.capped(at: .seconds(1)))
    }

    /// Closes the connection at once, without a goodbye (a cancelled publisher).
    func abort() {
        publishing = false
        socket.close()
    }

    // MARK: Internals

    /// C0 and C1 out, S0 and S1 in, C2 out, S2 in, under one deadline that holds however the
    /// server sends its packets (``TCPSocket/receive(exactly:deadline:)`` checks it each time
    /// bytes arrive).
    private func handshake(deadline: Deadline) throws(RTMPError) {
        let c1 = RTMPHandshake.c0c1(seed: UInt64(truncatingIfNeeded: ContinuousClock.now.hashValue))
        try transport.send(c1, deadline: deadline)
        let s0s1 = try transport.receive(exactly: 1 + RTMPHandshake.packetSize, deadline: deadline)
        let c2 = try RTMPHandshake.c2(fromS0S1: s0s1[...])
        try transport.send(c2, deadline: deadline)
        let s2 = try transport.receive(exactly: RTMPHandshake.packetSize, deadline: deadline)
        handshakeBytes = Int64(s0s1.count &+ s2.count)  // two packets of 1537 and 1536 bytes
    }

    private func nextTransaction() -> Double {
        transaction += 1
        return transaction
    }

    /// The socket's send and receive, their failures mapped to `RTMPError` (one place:
    /// `RTMPError(_:)` from a `SocketError`).
    private struct Transport {
        let socket: TCPSocket

        func send(_ bytes: [UInt8], deadline: Deadline) throws(RTMPError) {
            try RTMPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: deadline) }
        }

        func receive(maximum: Int, deadline: Deadline) throws(RTMPError) -> [UInt8] {
            try RTMPError.mapping { () throws(SocketError) in try socket.receive(maximum: maximum, deadline: deadline) }
        }

        func receive(exactly count: Int, deadline: Deadline) throws(RTMPError) -> [UInt8] {
            try RTMPError.mapping { () throws(SocketError) in try socket.receive(exactly: count, deadline: deadline) }
        }
    }

    /// Sends what the session has queued.
    private func flush(deadline: Deadline) throws(RTMPError) {
        let out = session.takeOutgoing()
        guard !out.isEmpty else { return }
        try transport.send(out, deadline: deadline)
        bytesSent &+= Int64(out.count)  // an Int64 byte count does not overflow in practice
    }

    /// Sends a command and waits for its `_result`; returns the reply's values.
    private func call(_ name: String, _ args: [AMF0Value], deadline: Deadline) throws(RTMPError) -> [AMF0Value] {
        let txn = nextTransaction()
        session.send(.command(name, transaction: txn, args), on: RTMPChunkStream.command)
        try flush(deadline: deadline)
        while true {
            let values = try nextCommand(deadline: deadline)
            guard values.count >= 2, values[1].number == txn else { continue }
            switch values[0].string {
            case "_result":
                return values
            case "_error":
                let info = values.dropFirst(3).first
                throw RTMPError.invalid(.connectionRejected, "\(name) answered _error \(info?["code"]?.string ?? ""): \(info?["description"]?.string ?? "")")
            default:
                continue
            }
        }
    }

    /// The next AMF0 command from the server, handling control messages on the way; the
    /// deadline is checked each time round, whatever arrives.
    private func nextCommand(deadline: Deadline) throws(RTMPError) -> [AMF0Value] {
        while true {
            guard !deadline.hasPassed else { throw RTMPError.invalid(.timedOut, "waiting for the server timed out") }
            if let values = try session.nextCommand() {
                try flush(deadline: deadline)
                return values
            }
            try flush(deadline: deadline)
            let bytes = try transport.receive(maximum: 64 * 1024, deadline: deadline)
            session.receive(bytes[...])
        }
    }
}
