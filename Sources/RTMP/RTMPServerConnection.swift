import FLV
import H264
import MediaSupport

/// One client of an ``RTMPServer``, on its own thread: the handshake, then the command
/// sequence, then the publish (what it sends goes to its ``RTMPIngestStream``). Every wait has
/// a deadline: ``RTMPServer/Options/handshakeTimeout`` from accept until it publishes or plays,
/// ``RTMPServer/Options/idleTimeout`` between messages and for each send; every wait watches
/// the server's interrupt and the handle's shutdown.
///
/// Not thread-safe: its thread drives it; other threads reach it through its
/// ``RTMPServerConnectionHandle``.
final class RTMPServerConnection {
    /// A publish in progress.
    struct Publishing {
        let streamID: UInt32
        let key: String
        let ingest: RTMPIngestStream
        /// What goes to the stream's players.
        let relay: RTMPStreamRelay
        var parser = RTMPIngestParser()
        /// The group of pictures events belong to (the slow-consumer policy drops by group).
        var group: UInt64 = 0
        /// A decoder configuration was dropped: send it again before the next keyframe.
        var configurationPending = false
    }

    /// The most bytes read from the socket at once.
    static let readSize = 64 << 10
    /// Bytes counted per event waiting for the consumer besides its payload.
    static let eventOverhead = 64
    /// The most message streams (`createStream`) one connection may create.
    static let maximumMessageStreams: UInt32 = 8

    let core: RTMPServerCore
    let options: RTMPServer.Options
    let socket: TCPSocket
    private let handle: RTMPServerConnectionHandle
    var session: RTMPSession
    /// Bytes this connection counts in the server's total.
    private var accounted = 0
    /// `connect`'s command object, once it came.
    var connectParameters: [AMF0Property]?
    var application = ""
    var applicationQuery: [String: String] = [:]
    var lastStreamID: UInt32 = 0
    var publishing: Publishing?
    /// Until this deadline the connection must publish or play.
    var setupDeadline: Deadline
    var idleDeadline: Deadline
    /// Set when the connection is to end after what is queued is sent (a refused publish).
    var closing = false
    /// A play in progress (RTMPServerConnection+Play.swift).
    var playing: Playing?

    init(core: RTMPServerCore, socket: TCPSocket, handle: RTMPServerConnectionHandle) {
        self.core = core
        options = core.options
        self.socket = socket
        self.handle = handle
        session = RTMPSession(maximumMessageSize: options.maximumMessageSize,
                              maximumBufferedBytes: options.maximumBytesPerConnection,
                              maximumChunkStreams: options.maximumChunkStreams)
        setupDeadline = .after(options.handshakeTimeout)
        idleDeadline = .after(options.idleTimeout)
    }

    /// Runs the connection to its end; never throws: the end is reported to the publish's
    /// consumer, if any.
    func run() {
        var failure: RTMPError?
        do {
            try handshake()
            try serve()
        } catch {
            failure = handle.endReason ?? error
        }
        endPublish(failure.flatMap { Self.isCleanEnd($0, session) ? nil : $0 })
        stopPlaying()
        _ = core.account(-accounted)
        accounted = 0
        handle.closeSocket()
        core.connectionEnded()
    }

    /// A peer that closes between messages ends its publish cleanly.
    private static func isCleanEnd(_ error: RTMPError, _ session: RTMPSession) -> Bool {
        error.code == .connectionClosed && session.reader.bufferedByteCount == 0 && session.reader.unparsedByteCount == 0
    }

    // MARK: Handshake

    /// C0 and C1 in, S0, S1 and S2 out, C2 in, within the setup deadline.
    private func handshake() throws(RTMPError) {
        let c0c1 = try receive(exactly: 1 &+ RTMPHandshake.packetSize, deadline: setupDeadline)
        guard c0c1[0] == 3 else {
            throw RTMPError.invalid(.protocolViolation, "RTMP client asked for handshake version \(c0c1[0]), not 3")
        }
        let seed = UInt64(truncatingIfNeeded: ContinuousClock.now.hashValue) ^ UInt64(truncatingIfNeeded: handle.id)
        // The digest handshake when C1 carries a digest (Flash-era clients, some encoders),
        // the plain echo otherwise.
        let response = RTMPDigestHandshake.serverResponse(c0c1: c0c1[...], seed: seed)
        try send(response, deadline: setupDeadline)
        _ = try receive(exactly: RTMPHandshake.packetSize, deadline: setupDeadline)
    }

    // MARK: The message loop

    private func serve() throws(RTMPError) {
        while true {
            while let message = try session.nextMessage() {
                idleDeadline = .after(options.idleTimeout)  // progress: a message other than control
                try handle(message)
                if closing { break }
            }
            try flush()
            if closing {
                socket.shutdownAndDrain(deadline: .after(.milliseconds(500)))
                return
            }
            try account()
            // A player is held to the deadline of each send instead (it sends little).
            if playing != nil {
                try pumpPlayback()
                continue
            }
            // Checked here too, not only when nothing arrives: a client that keeps sending
            // control messages (or a message a byte at a time) is held to the same deadlines.
            try checkDeadlines()
            let deadline = publishing == nil ? min(setupDeadline, idleDeadline) : idleDeadline
            let bytes: [UInt8]
            do throws(RTMPError) {
                bytes = try RTMPError.mapping { () throws(SocketError) in
                    try socket.receive(maximum: Self.readSize, deadline: deadline)
                }
            } catch where error.code == .timedOut {
                try checkDeadlines()
                throw error
            }
            session.receive(bytes[...])
            try account()
        }
    }

    /// - Throws: ``RTMPError/Code/timedOut`` once the setup deadline (not publishing) or the
    ///   idle deadline has passed.
    private func checkDeadlines() throws(RTMPError) {
        if publishing == nil && setupDeadline.hasPassed {
            throw RTMPError.invalid(.timedOut, "the client did not publish or play within \(options.handshakeTimeout)")
        }
        if idleDeadline.hasPassed {
            throw RTMPError.invalid(.timedOut, "the client sent no message for \(options.idleTimeout)")
        }
    }

    /// Brings this connection's count in the server's total up to date.
    /// - Throws: ``RTMPError/Code/limitExceeded`` when the server's total is exceeded.
    func account() throws(RTMPError) {
        let held = session.reader.memoryInUse &+ session.outgoing.count
        let delta = held &- accounted
        accounted = held
        guard core.account(delta) else {
            throw RTMPError.invalid(.limitExceeded, "the server holds more than \(options.maximumTotalBytes) bytes for its connections")
        }
    }

    private func handle(_ message: RTMPMessage) throws(RTMPError) {
        switch message.kind {
        case .commandAMF0, .commandAMF3:
            guard let values = try RTMPSession.command(message) else { return }
            try command(values, streamID: message.streamID)
        case .audio, .video, .dataAMF0, .dataAMF3:
            guard let p = publishing, p.streamID == message.streamID else { return }  // not publishing there: ignored
            try media(message)
        default:
            break  // aggregate, shared object and unknown types: not for a publish of H.264
        }
    }

    // MARK: Commands

    private func command(_ values: [AMF0Value], streamID: UInt32) throws(RTMPError) {
        let name = values.first?.string ?? ""
        let transaction = values.dropFirst().first?.number ?? 0
        let arguments = Array(values.dropFirst(3))
        guard name == "connect" || connectParameters != nil else {
            throw RTMPError.invalid(.protocolViolation, "RTMP command '\(name)' before connect")
        }
        switch name {
        case "connect":
            try connect(values.dropFirst(2).first, transaction: transaction)
        case "createStream":
            guard lastStreamID < Self.maximumMessageStreams else {
                return error(transaction, "NetConnection.Call.Failed", "too many streams on one connection")
            }
            lastStreamID &+= 1  // below maximumMessageStreams
            session.send(.command("_result", transaction: transaction, [.null, .number(Double(lastStreamID))]),
                         on: RTMPChunkStream.command)
        case "releaseStream", "FCPublish", "FCUnpublish":
            if name == "FCPublish" {
                session.send(.command("onFCPublish", transaction: 0, [.null, .object(Self.info("status", "NetStream.Publish.Start",
                                                                                               arguments.first?.string ?? ""))]),
                             on: RTMPChunkStream.command)
            }
            if name == "FCUnpublish" {
                session.send(.command("onFCUnpublish", transaction: 0, [.null, .object(Self.info("status", "NetStream.Unpublish.Success",
                                                                                                 arguments.first?.string ?? ""))]),
                             on: RTMPChunkStream.command)
                unpublish(streamID: publishing?.streamID ?? 0)
            }
            if transaction != 0 {
                session.send(.command("_result", transaction: transaction, [.null, .undefined]), on: RTMPChunkStream.command)
            }
        case "publish":
            try publish(arguments, streamID: streamID)
        case "play":
            play(arguments, streamID: streamID)
        case "getStreamLength":
            // Players ask before `play`: a live stream has no length.
            if transaction != 0 {
                session.send(.command("_result", transaction: transaction, [.null, .number(0)]), on: RTMPChunkStream.command)
            }
        case "deleteStream":
            let deleted = arguments.first?.number.flatMap { UInt32(exactly: $0) } ?? streamID
            unpublish(streamID: deleted)
            stopPlaying(streamID: deleted)
        case "closeStream":
            unpublish(streamID: streamID)
            stopPlaying(streamID: streamID)
        default:
            // getStreamLength, _checkbw, receiveAudio, ... : answered when an answer is awaited.
            if transaction != 0 { error(transaction, "NetConnection.Call.Failed", "unknown command '\(name)'") }
        }
    }

    /// `connect`: Window Acknowledgement Size, Set Peer Bandwidth, Set Chunk Size, `_result`.
    private func connect(_ object: AMF0Value?, transaction: Double) throws(RTMPError) {
        guard connectParameters == nil else {
            throw RTMPError.invalid(.protocolViolation, "RTMP connect sent twice on one connection")
        }
        var properties: [AMF0Property] = []
        switch object {
        case .object(let p), .ecmaArray(let p): properties = p
        default: break
        }
        connectParameters = properties
        let app = properties.first { $0.name == "app" }?.value.string ?? ""
        (application, applicationQuery) = RTMPPublishRequest.splitQuery(app)
        let encoding = properties.first { $0.name == "objectEncoding" }?.value.number ?? 0
        session.send(.control(.windowAcknowledgementSize, 2_500_000), on: RTMPChunkStream.control)
        var bandwidth: [UInt8] = []
        bandwidth.writeUInt32(2_500_000)
        bandwidth.append(2)  // dynamic
        session.send(RTMPMessage(.setPeerBandwidth, payload: bandwidth), on: RTMPChunkStream.control)
        session.send(.control(.setChunkSize, UInt32(options.chunkSize)), on: RTMPChunkStream.control)
        session.chunkSize = options.chunkSize
        let server: [AMF0Property] = [AMF0Property("fmsVer", .string("FMS/3,0,1,123")),
                                      AMF0Property("capabilities", .number(31))]
        var info = Self.info("status", "NetConnection.Connect.Success", "Connection succeeded.")
        info.append(AMF0Property("objectEncoding", .number(encoding)))
        session.send(.command("_result", transaction: transaction, [.object(server), .object(info)]), on: RTMPChunkStream.command)
    }

    private func publish(_ arguments: [AMF0Value], streamID: UInt32) throws(RTMPError) {
        guard publishing == nil else {
            return status(streamID, "error", "NetStream.Publish.BadName", "this connection publishes already")
        }
        let (name, nameQuery) = RTMPPublishRequest.splitQuery(arguments.first?.string ?? "")
        let request = RTMPPublishRequest(action: .publish, application: application, streamName: name,
                                         query: applicationQuery.merging(nameQuery) { $1 },
                                         publishingType: arguments.dropFirst().first?.string ?? "live",
                                         peerHost: socket.remoteAddress.host, peerPort: socket.remoteAddress.port,
                                         connectParameters: connectParameters ?? [])
        guard !name.isEmpty, streamID != 0, streamID <= lastStreamID else {
            return refuse(streamID, "NetStream.Publish.BadName", "publish needs a stream name on a stream made by createStream")
        }
        guard let authorize = options.authorize else {
            return refuse(streamID, "NetStream.Publish.Denied", "publishing is not enabled on this server (no authorization hook)")
        }
        if case .reject(let reason) = authorize(request) {
            return refuse(streamID, "NetStream.Publish.Denied", reason)
        }
        let key = application + "/" + name
        switch core.claim(key, connectionID: handle.id, handle: handle) {
        case .claimed: break
        case .inUse: return refuse(streamID, "NetStream.Publish.BadName", "'\(key)' is being published already")
        case .closed: return refuse(streamID, "NetStream.Publish.Failed", "the server is closing")
        }
        let ingest = RTMPIngestStream(request: request, queueBytes: options.eventQueueBytes, handle: handle)
        guard core.published.push(ingest, deadline: .now) == .queued else {
            core.release(key, connectionID: handle.id)
            return refuse(streamID, "NetStream.Publish.Failed", "the server takes no more publishes now")
        }
        publishing = Publishing(streamID: streamID, key: key, ingest: ingest, relay: core.relays.start(key))
        session.send(RTMPMessage(.userControl, payload: [0, 0] + Self.bigEndian(streamID)), on: RTMPChunkStream.control)  // Stream Begin
        status(streamID, "status", "NetStream.Publish.Start", "'\(name)' is now published")
    }

    /// Refuses a publish with an error status and ends the connection once it is sent.
    private func refuse(_ streamID: UInt32, _ code: String, _ description: String) {
        core.countRefusedPublish()
        status(streamID, "error", code, description)
        closing = true
    }

    /// Ends the publish on `streamID`, if that is the stream published: Stream EOF and
    /// NetStream.Unpublish.Success; the ingest stream ends cleanly.
    private func unpublish(streamID: UInt32) {
        guard let p = publishing, p.streamID == streamID else { return }
        session.send(RTMPMessage(.userControl, payload: [0, 1] + Self.bigEndian(streamID)), on: RTMPChunkStream.control)  // Stream EOF
        status(streamID, "status", "NetStream.Unpublish.Success", "'\(p.ingest.request.streamName)' is no longer published")
        endPublish(nil)
        setupDeadline = .after(options.handshakeTimeout)
    }

    /// Ends the publish, if any: the ingest stream ends, with `error` when given.
    private func endPublish(_ error: RTMPError?) {
        guard let p = publishing else { return }
        publishing = nil
        p.ingest.queue.close(error)
        core.relays.end(p.key, p.relay)
        core.release(p.key, connectionID: handle.id)
    }

    // MARK: Media

    private func media(_ message: RTMPMessage) throws(RTMPError) {
        guard var p = publishing else { return }
        defer { if publishing != nil { publishing = p } }
        let event: RTMPIngestStream.Event?
        do throws(RTMPError) {
            event = try p.parser.event(for: message)
        } catch {
            if error.code == .unsupported {
                status(p.streamID, "error", "NetStream.Publish.Failed", error.reason)
                try? flush()
            }
            throw error
        }
        // The players first: the relay never waits, the consumer of the ingest stream may.
        if let relayed = RTMPRelayMessage.forPlayers(typeID: message.typeID, timestamp: message.timestamp, payload: message.payload) {
            p.relay.publish(relayed)
        }
        p.ingest.update { s in
            s.bytes &+= Int64(message.payload.count)  // an Int64 byte count does not overflow in practice
            s.negativeCompositionTimes = p.parser.negativeCompositionTimes
        }
        guard let event else { return }
        switch event {
        case .decoderConfiguration:
            p.group &+= 1  // a new group per header and per keyframe: never wraps in practice
            p.configurationPending = false
        case .video(let au):
            p.ingest.update { $0.accessUnits &+= 1 }
            if au.isKeyframe {
                p.group &+= 1
                if p.configurationPending, let bytes = p.parser.configurationBytes {
                    p.configurationPending = false
                    deliver(.decoderConfiguration(bytes, timestamp: au.timestamps?.dts ?? 0), bytes: bytes.count, &p)
                }
            }
        case .tag:
            p.ingest.update { $0.tags &+= 1 }
        default:
            break
        }
        deliver(event, bytes: message.payload.count, &p)
    }

    /// Hands an event to the consumer: waits up to `consumerWait` for room, then drops it with
    /// the rest of its group.
    private func deliver(_ event: RTMPIngestStream.Event, bytes: Int, _ p: inout Publishing) {
        let result = p.ingest.queue.push(event, bytes: bytes &+ Self.eventOverhead, group: p.group,
                                         deadline: .after(options.consumerWait))
        switch result {
        case .queued:
            break
        case .dropped:
            p.ingest.update { $0.eventsDropped &+= 1 }
            if case .decoderConfiguration = event { p.configurationPending = true }
        case .closed:
            break  // the consumer cancelled: the handle ends the connection
        }
    }

    // MARK: Sending

    func status(_ streamID: UInt32, _ level: String, _ code: String, _ description: String) {
        session.send(.command("onStatus", transaction: 0, [.null, .object(Self.info(level, code, description))], streamID: streamID),
                     on: RTMPChunkStream.data)
    }

    private func error(_ transaction: Double, _ code: String, _ description: String) {
        session.send(.command("_error", transaction: transaction, [.null, .object(Self.info("error", code, description))]),
                     on: RTMPChunkStream.command)
    }

    private static func info(_ level: String, _ code: String, _ description: String) -> [AMF0Property] {
        [AMF0Property("level", .string(level)), AMF0Property("code", .string(code)),
         AMF0Property("description", .string(description))]
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.writeUInt32(value)
        return out
    }

    func flush() throws(RTMPError) {
        let out = session.takeOutgoing()
        guard !out.isEmpty else { return }
        try send(out, deadline: .after(options.idleTimeout))
    }

    private func send(_ bytes: [UInt8], deadline: Deadline) throws(RTMPError) {
        try RTMPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: deadline) }
    }

    private func receive(exactly count: Int, deadline: Deadline) throws(RTMPError) -> [UInt8] {
        try RTMPError.mapping { () throws(SocketError) in try socket.receive(exactly: count, deadline: deadline) }
    }
}
