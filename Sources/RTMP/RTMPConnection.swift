import FLV
import H264

/// A synchronous RTMP publishing session over one TCP connection: handshake, `connect`,
/// `createStream`, `publish`, then FLV video and metadata messages, then a clean
/// `FCUnpublish`/`deleteStream`.
///
/// Every call blocks at most for the timeouts in ``Options``. Not thread-safe: one thread
/// drives it (``RTMPPublisher`` runs one on its own queue).
public final class RTMPConnection {
    /// Connection settings.
    public struct Options: Sendable, Hashable {
        /// Time allowed for the TCP connection.
        public var connectTimeoutMilliseconds: Int
        /// Time allowed for each later step (handshake, each command, each send).
        public var timeoutMilliseconds: Int
        /// The chunk size we announce with Set Chunk Size and send with (128...65536).
        public var chunkSize: Int
        /// The `flashVer` of `connect`.
        public var flashVersion: String
        /// Send `releaseStream` and `FCPublish` before `publish` (as FFmpeg and OBS do).
        public var sendFCPublish: Bool

        /// Creates options.
        public init(connectTimeoutMilliseconds: Int = 5000, timeoutMilliseconds: Int = 5000, chunkSize: Int = 4096,
                    flashVersion: String = "FMLE/3.0 (compatible; swift-h264)", sendFCPublish: Bool = true) {
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
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
    public private(set) var bytesReceived: Int64 = 0

    private let socket: TCPSocket
    private var writer = RTMPChunkWriter()
    private var reader = RTMPChunkReader()
    private var transaction: Double = 1
    private var acknowledgementWindow: Int64 = 2_500_000
    private var lastAcknowledged: Int64 = 0
    private var publishing = false

    /// Chunk streams: 2 protocol control, 3 commands, 5 data, 6 video.
    private enum ChunkStream { static let control: UInt8 = 2, command: UInt8 = 3, data: UInt8 = 5, video: UInt8 = 6 }

    /// Connects, handshakes and sends `connect` for `url`'s application; returns once the
    /// server answered `_result` (NetConnection.Connect.Success).
    /// - Throws: ``H264Error/Code/connectionRefused``, ``H264Error/Code/timedOut``,
    ///   ``H264Error/Code/connectionRejected`` (a `_error` reply, or the server closing the
    ///   connection in reply to `connect`, which is how nginx-rtmp refuses an unknown
    ///   application), ``H264Error/Code/protocolViolation``, ``H264Error/Code/io``.
    public init(url: RTMPURL, options: Options = Options()) throws(H264Error) {
        self.url = url
        self.options = options
        guard (128...65536).contains(options.chunkSize) else {
            throw H264Error.invalid(.invalidArgument, "RTMP chunk size \(options.chunkSize) outside 128...65536")
        }
        socket = try TCPSocket(host: url.host, port: url.port, timeoutMilliseconds: options.connectTimeoutMilliseconds)
        try handshake()
        try send(.control(.setChunkSize, UInt32(options.chunkSize)), on: ChunkStream.control)
        writer.chunkSize = options.chunkSize
        let info: [AMF0Property] = [
            AMF0Property("app", .string(url.application)),
            AMF0Property("type", .string("nonprivate")),
            AMF0Property("flashVer", .string(options.flashVersion)),
            AMF0Property("tcUrl", .string(url.tcURL)),
        ]
        let reply: [AMF0Value]
        do {
            reply = try call("connect", [.object(info)])
        } catch where error.code == .connectionClosed {
            throw H264Error.invalid(.connectionRejected,
                                    "the server closed the connection in reply to connect (unknown application '\(url.application)'?)")
        }
        let code = reply.dropFirst(3).first?["code"]?.string ?? ""
        guard code == "NetConnection.Connect.Success" || code.isEmpty else {
            throw H264Error.invalid(.connectionRejected, "connect answered \(code)")
        }
        try send(.control(.windowAcknowledgementSize, 2_500_000), on: ChunkStream.control)
    }

    deinit { socket.close() }

    /// Creates a stream and publishes it live under `url`'s stream name; returns once the
    /// server answered onStatus NetStream.Publish.Start.
    /// - Throws: ``H264Error/Code/connectionRejected`` for an error status (a name already in
    ///   use, a refused publish), and the errors of the transport.
    public func publish() throws(H264Error) {
        let name = AMF0Value.string(url.streamName)
        if options.sendFCPublish {
            try send(.command("releaseStream", transaction: nextTransaction(), [.null, name]), on: ChunkStream.command)
            try send(.command("FCPublish", transaction: nextTransaction(), [.null, name]), on: ChunkStream.command)
        }
        let created = try call("createStream", [.null])
        guard let id = created.dropFirst(3).first?.number, let sid = UInt32(exactly: id) else {
            throw H264Error.invalid(.protocolViolation, "createStream answered without a stream id")
        }
        streamID = sid
        try send(.command("publish", transaction: 0, [.null, name, .string("live")], streamID: sid), on: ChunkStream.command)
        let deadline = Deadline(milliseconds: options.timeoutMilliseconds)
        while true {
            let values = try nextCommand(deadline: deadline)
            guard values.first?.string == "onStatus" else { continue }
            let info = values.dropFirst(3).first
            let code = info?["code"]?.string ?? ""
            if info?["level"]?.string == "error" || code.hasSuffix("BadName") || code.hasSuffix("Failed") {
                throw H264Error.invalid(.connectionRejected, "publish '\(url.streamName)' answered \(code): \(info?["description"]?.string ?? "")")
            }
            if code == "NetStream.Publish.Start" { break }
        }
        publishing = true
    }

    /// Sends `@setDataFrame onMetaData` with the metadata.
    public func sendMetadata(_ metadata: FLVMetadata) throws(H264Error) {
        let payload = AMF0.encode([.string("@setDataFrame"), .string("onMetaData"), metadata.ecmaArray])
        try send(RTMPMessage(.dataAMF0, streamID: streamID, payload: payload), on: ChunkStream.data)
    }

    /// Sends one FLV video tag body (a sequence header, a frame, an end of sequence) as a
    /// video message at `timestamp` milliseconds (the DTS).
    public func sendVideo(_ packet: FLVVideoPacket, timestamp: UInt32) throws(H264Error) {
        try send(RTMPMessage(.video, streamID: streamID, timestamp: timestamp, payload: packet.bytes), on: ChunkStream.video)
        try serviceIncoming()
    }

    /// Handles what the server sent meanwhile (acknowledgements, pings, chunk size changes)
    /// without waiting.
    /// - Throws: ``H264Error/Code/connectionClosed`` when the server has closed the connection.
    public func serviceIncoming() throws(H264Error) {
        while socket.isReadable() {
            do {
                try receive(deadline: Deadline(milliseconds: 0))
            } catch where error.code == .timedOut {
                return  // a spurious wake-up: nothing to read after all
            }
            while let m = try reader.nextMessage() {
                if let values = try handle(m), values.first?.string == "onStatus",
                   values.dropFirst(3).first?["level"]?.string == "error" {
                    let code = values.dropFirst(3).first?["code"]?.string ?? ""
                    throw H264Error.invalid(.connectionRejected, "the server stopped the stream: \(code)")
                }
            }
        }
    }

    /// Ends publishing with `FCUnpublish` and `deleteStream`, then closes the connection.
    /// Errors while saying goodbye are thrown after the socket is closed.
    public func close() throws(H264Error) {
        defer { socket.close() }
        guard publishing else { return }
        publishing = false
        let name = AMF0Value.string(url.streamName)
        if options.sendFCPublish {
            try send(.command("FCUnpublish", transaction: nextTransaction(), [.null, name]), on: ChunkStream.command)
        }
        try send(.command("deleteStream", transaction: nextTransaction(), [.null, .number(Double(streamID))]), on: ChunkStream.command)
        socket.shutdownAndDrain(deadline: Deadline(milliseconds: min(options.timeoutMilliseconds, 1000)))
    }

    // MARK: Internals

    private func handshake() throws(H264Error) {
        let deadline = Deadline(milliseconds: options.timeoutMilliseconds)
        let c1 = RTMPHandshake.c0c1(seed: UInt64(truncatingIfNeeded: ContinuousClock.now.hashValue))
        try socket.send(c1, deadline: deadline)
        var got: [UInt8] = []
        let s0s1 = 1 + RTMPHandshake.packetSize
        while got.count < s0s1 {
            got += try socket.receive(maximum: s0s1 * 2 - got.count, deadline: deadline)
        }
        try socket.send(try RTMPHandshake.c2(fromS0S1: got[...]), deadline: deadline)
        let total = s0s1 + RTMPHandshake.packetSize
        while got.count < total {
            got += try socket.receive(maximum: total - got.count, deadline: deadline)
        }
        bytesReceived = Int64(got.count)
        if got.count > total { reader.append(Array(got[total...])) }
    }

    private func nextTransaction() -> Double {
        transaction += 1
        return transaction
    }

    private func send(_ message: RTMPMessage, on chunkStream: UInt8) throws(H264Error) {
        var out: [UInt8] = []
        writer.write(message, chunkStreamID: chunkStream, into: &out)
        try socket.send(out, deadline: Deadline(milliseconds: options.timeoutMilliseconds))
        bytesSent &+= Int64(out.count)  // an Int64 byte count does not overflow in practice
    }

    private func receive(deadline: Deadline) throws(H264Error) {
        let bytes = try socket.receive(maximum: 64 * 1024, deadline: deadline)
        bytesReceived &+= Int64(bytes.count)  // an Int64 byte count does not overflow in practice
        reader.append(bytes)
        if bytesReceived - lastAcknowledged >= acknowledgementWindow {
            lastAcknowledged = bytesReceived
            try send(.control(.acknowledgement, UInt32(truncatingIfNeeded: bytesReceived)), on: ChunkStream.control)
        }
    }

    /// Sends a command and waits for its `_result`; returns the reply's values.
    private func call(_ name: String, _ args: [AMF0Value]) throws(H264Error) -> [AMF0Value] {
        let txn = nextTransaction()
        try send(.command(name, transaction: txn, args), on: ChunkStream.command)
        let deadline = Deadline(milliseconds: options.timeoutMilliseconds)
        while true {
            let values = try nextCommand(deadline: deadline)
            guard values.count >= 2, values[1].number == txn else { continue }
            switch values[0].string {
            case "_result":
                return values
            case "_error":
                let info = values.dropFirst(3).first
                throw H264Error.invalid(.connectionRejected, "\(name) answered _error \(info?["code"]?.string ?? ""): \(info?["description"]?.string ?? "")")
            default:
                continue
            }
        }
    }

    /// The next AMF0 command from the server, handling control messages on the way.
    private func nextCommand(deadline: Deadline) throws(H264Error) -> [AMF0Value] {
        while true {
            while let m = try reader.nextMessage() {
                if let values = try handle(m) { return values }
            }
            try receive(deadline: deadline)
        }
    }

    /// Applies a control message; returns the values of a command message.
    private func handle(_ m: RTMPMessage) throws(H264Error) -> [AMF0Value]? {
        switch m.kind {
        case .setChunkSize:
            let size = Int(try m.uint32() & 0x7FFF_FFFF)
            guard size >= 1 else { throw H264Error.invalid(.protocolViolation, "Set Chunk Size 0") }
            reader.chunkSize = size
        case .abort:
            reader.abort(chunkStreamID: try m.uint32())
        case .windowAcknowledgementSize:
            acknowledgementWindow = Int64(max(try m.uint32(), 1))
        case .userControl:
            // Ping request (event 6): answer with a ping response (event 7) and the same time.
            if m.payload.count >= 6, m.payload[0] == 0, m.payload[1] == 6 {
                try send(RTMPMessage(.userControl, payload: [0, 7] + m.payload[2..<6]), on: ChunkStream.control)
            }
        case .commandAMF0:
            do {
                return try AMF0.decodeAll(m.payload[...])
            } catch {
                throw H264Error.invalid(.protocolViolation, "malformed AMF0 command from the server: \(error.reason)")
            }
        default:
            break  // acknowledgements, peer bandwidth, abort, data: nothing to do for a publisher
        }
        return nil
    }
}
