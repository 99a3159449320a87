import FLV
import H264
import MediaSupport

/// An RTMP server that takes streams in: publishers (OBS, FFmpeg, GStreamer, phone apps, the
/// library's own ``RTMPPublisher``) connect, are authorized, and what they send comes out as
/// ``RTMPIngestStream``s, `AsyncSequence`s of access units (`AccessUnitSample`s that
/// `MP4Recorder`, `HLSRecorder` and ``AsyncRTMPPublisher`` take as they are) and opaque audio
/// and data tags.
///
/// ```swift
/// var options = RTMPServer.Options()
/// options.authorize = { request in
///     request.streamName == "secret-key" ? .allow : .reject(reason: "unknown stream key")
/// }
/// let server = try RTMPServer(host: "127.0.0.1", port: 1935, options: options)
/// for try await ingest in server.publishedStreams {
///     Task { for try await event in ingest { /* record, package, restream */ } }
/// }
/// ```
///
/// **Publishing is refused unless allowed.** A server without an authorization hook
/// (``Options/authorize`` nil) answers every `publish` with `NetStream.Publish.Denied`: give it
/// a hook that checks the stream key (and whatever else of the ``RTMPPublishRequest``: the
/// application, the query, the peer's address, `connect`'s parameters). One publisher per
/// application and stream name: a second is refused (`NetStream.Publish.BadName`) or replaces
/// the first (``Options/duplicatePublisher``).
///
/// **The protocol.** The handshake in both forms: the plain one and the digest form of Flash
/// Player 9 that FFmpeg, librtmp and Flash-era encoders send (answered with the server's digest
/// and signature, which players such as FFmpeg check); the chunk stream both ways (any chunk size from 1,
/// the peer's acknowledgement window honoured, ping requests answered); the command sequence
/// publishers send: `connect` (answered with Window Acknowledgement Size, Set Peer Bandwidth,
/// Set Chunk Size and `_result` NetConnection.Connect.Success), `releaseStream`, `FCPublish`
/// (`onFCPublish`), `createStream`, `publish` (User Control Stream Begin and onStatus
/// `NetStream.Publish.Start`, or an error status), `@setDataFrame onMetaData`, `FCUnpublish`,
/// `deleteStream`, `closeStream` (Stream EOF and `NetStream.Unpublish.Success`). Other commands
/// are answered with `_error` (or ignored when they expect no answer), never fatal. Video is
/// H.264 as legacy AVC tags or enhanced RTMP (`ExVideoTagHeader`, FourCC `avc1`); another
/// codec (`hvc1`, `av01`, a legacy `CodecID` other than 7) is refused with onStatus
/// `NetStream.Publish.Failed` naming it, and the publish ends with
/// ``RTMPError/Code/unsupported``.
///
/// **Play.** The same server serves `play` (checked with FFmpeg and GStreamer `rtmpsrc`) of a
/// stream being published, in the application and under the name it was published with
/// (`rtmp://host:port/live/KEY`), when ``Options/authorizePlay`` allows it: `connect`,
/// `createStream`, `getStreamLength` (`_result` 0: live), `play` (User Control
/// Stream Begin, onStatus `NetStream.Play.Reset` and `NetStream.Play.Start`, the data message
/// `|RtmpSampleAccess`), then the media. A new player starts at the last keyframe: it gets the
/// metadata, the video and audio sequence headers, then everything from that keyframe (a GOP
/// cache of ``Options/gopCacheBytes``; when the current group of pictures outgrows it, the
/// next player waits for the next keyframe), then live. Each player has a queue of
/// ``Options/playerQueueBytes``: when it is full the oldest group of pictures waiting is
/// dropped whole (audio included), never part of one, so a slow player never slows the
/// publisher or the other players; a player that stops reading is ended when a send to it
/// outlasts ``Options/idleTimeout``. When the publisher goes, players get Stream EOF and
/// `NetStream.Play.UnpublishNotify` and their connections end. A name nobody publishes gets
/// `NetStream.Play.StreamNotFound`. Players get the messages as the publisher sent them
/// (`@setDataFrame` removed from the metadata, enhanced RTMP `avc1` video as the legacy AVC
/// tags every player reads), with the publisher's timestamps. Playing starts at a video
/// keyframe: a stream without video gives its players nothing.
///
/// **Threads.** The listener accepts on a thread of its own; each connection runs on its own
/// thread, with blocking sockets whose every wait has a deadline and watches the server's
/// interrupt, so ``close()`` (or releasing the server) ends the listener and every connection
/// at once, wherever each is waiting.
///
/// **Bounds** (``Options``; Docs/Limits.md): connections (one more is closed as soon as it is
/// accepted), the time from accepting a connection until it publishes or plays (the handshake
/// and the commands: a slow-loris client gets no further), the time between two messages, the
/// size of one message (the 24-bit length of a message header is checked before any byte of it
/// is held), the bytes of incomplete messages and chunk-stream bookkeeping per connection and
/// in total, the chunk streams per connection, the events waiting per publish.
///
/// `Sendable`: ``close()``, ``statistics`` and ``publishedStreams`` may be used from any thread
/// or task.
public final class RTMPServer: Sendable {
    /// The server's settings.
    public struct Options: Sendable {
        /// Most connections at once; one more is closed as soon as it is accepted.
        public var maximumConnections: Int
        /// Largest message accepted (a video frame, a command), checked against the message
        /// header before any of its bytes are held.
        public var maximumMessageSize: Int
        /// Most bytes one connection holds in incomplete messages, chunk-stream bookkeeping and
        /// received bytes not yet parsed.
        public var maximumBytesPerConnection: Int
        /// Most bytes all connections hold together, counted as for one.
        public var maximumTotalBytes: Int
        /// Most chunk streams one connection may use (each counts in its bytes too).
        public var maximumChunkStreams: Int
        /// Time from accepting a connection until it publishes or plays: the handshake and the
        /// whole command sequence. A connection that stops publishing has this long again.
        public var handshakeTimeout: Duration
        /// Longest silence: the time allowed between two messages other than protocol control
        /// (a publisher's media, commands), and for each send.
        public var idleTimeout: Duration
        /// Bytes of the last group of pictures kept for players that join (the relay's GOP cache).
        public var gopCacheBytes: Int
        /// Bytes waiting for each player before whole groups of pictures are dropped.
        public var playerQueueBytes: Int
        /// Bytes of events waiting per publish for its consumer (``RTMPIngestStream``).
        public var eventQueueBytes: Int
        /// How long a publisher's connection waits for a slow consumer to take an event before
        /// the rest of that group of pictures is dropped (see ``RTMPIngestStream``).
        public var consumerWait: Duration
        /// Accepted publishes waiting to be taken from ``RTMPServer/publishedStreams``; one
        /// more is refused.
        public var maximumPendingPublishes: Int
        /// The chunk size the server announces and sends with (128...65536).
        public var chunkSize: Int
        /// What a second publisher of a stream name gets.
        public var duplicatePublisher: DuplicatePublisherPolicy
        /// Decides on each `publish`, before it is accepted. Nil (the default): every publish
        /// is refused with `NetStream.Publish.Denied`. Called on the publisher's connection
        /// thread: keep it quick.
        public var authorize: (@Sendable (RTMPPublishRequest) -> Decision)?
        /// Decides on each `play`; nil (the default) allows every player.
        public var authorizePlay: (@Sendable (RTMPPublishRequest) -> Decision)?

        /// Creates options.
        /// - Parameters:
        ///   - maximumConnections: most connections at once (256).
        ///   - maximumMessageSize: largest message (4 MiB).
        ///   - maximumBytesPerConnection: bytes held per connection (8 MiB).
        ///   - maximumTotalBytes: bytes held by all connections (256 MiB).
        ///   - maximumChunkStreams: chunk streams per connection (64).
        ///   - handshakeTimeout: from accept to publishing or playing (10 s).
        ///   - idleTimeout: longest silence (10 s).
        ///   - gopCacheBytes: the relay's GOP cache per stream (8 MiB).
        ///   - playerQueueBytes: the relay's queue per player (4 MiB).
        ///   - eventQueueBytes: events waiting per publish (16 MiB).
        ///   - consumerWait: the longest wait for a slow consumer per event (2 s).
        ///   - maximumPendingPublishes: publishes waiting to be taken (16).
        ///   - chunkSize: the chunk size sent with (4096).
        ///   - duplicatePublisher: refuse a second publisher (the default) or replace the first.
        ///   - authorize: the publish hook; nil refuses every publish.
        ///   - authorizePlay: the play hook; nil allows every player.
        public init(maximumConnections: Int = 256, maximumMessageSize: Int = 4 << 20,
                    maximumBytesPerConnection: Int = 8 << 20, maximumTotalBytes: Int = 256 << 20,
                    maximumChunkStreams: Int = 64, handshakeTimeout: Duration = .seconds(10),
                    idleTimeout: Duration = .seconds(10), gopCacheBytes: Int = 8 << 20, playerQueueBytes: Int = 4 << 20,
                    eventQueueBytes: Int = 16 << 20, consumerWait: Duration = .seconds(2),
                    maximumPendingPublishes: Int = 16, chunkSize: Int = 4096,
                    duplicatePublisher: DuplicatePublisherPolicy = .refuse,
                    authorize: (@Sendable (RTMPPublishRequest) -> Decision)? = nil,
                    authorizePlay: (@Sendable (RTMPPublishRequest) -> Decision)? = nil) {
            self.maximumConnections = maximumConnections
            self.maximumMessageSize = maximumMessageSize
            self.maximumBytesPerConnection = maximumBytesPerConnection
            self.maximumTotalBytes = maximumTotalBytes
            self.maximumChunkStreams = maximumChunkStreams
            self.handshakeTimeout = handshakeTimeout
            self.idleTimeout = idleTimeout
            self.gopCacheBytes = gopCacheBytes
            self.playerQueueBytes = playerQueueBytes
            self.eventQueueBytes = eventQueueBytes
            self.consumerWait = consumerWait
            self.maximumPendingPublishes = maximumPendingPublishes
            self.chunkSize = chunkSize
            self.duplicatePublisher = duplicatePublisher
            self.authorize = authorize
            self.authorizePlay = authorizePlay
        }
    }

    /// An authorization hook's answer.
    public enum Decision: Sendable, Hashable {
        /// The request goes ahead.
        case allow
        /// The request is refused; the reason goes to the client in the error status's
        /// `description`.
        case reject(reason: String)
    }

    /// What a second publisher of a stream name (the same application and stream name) gets.
    public enum DuplicatePublisherPolicy: Sendable, Hashable {
        /// It is refused with `NetStream.Publish.BadName`; the first goes on.
        case refuse
        /// The first publisher's connection is closed (its ``RTMPIngestStream`` throws
        /// ``RTMPError/Code/cancelled``) and the second takes the name.
        case replaceExisting
    }

    /// Counters, read together.
    public struct Statistics: Sendable, Hashable {
        /// Connections open now.
        public var connections = 0
        /// Connections accepted so far (those closed at once for the limit included).
        public var connectionsAccepted = 0
        /// Connections closed at once because ``Options/maximumConnections`` were open.
        public var connectionsRefused = 0
        /// Streams being published now.
        public var publishing = 0
        /// Publishes accepted so far.
        public var publishesAccepted = 0
        /// Publishes refused so far (authorization, a duplicate, a name in use, no room).
        public var publishesRefused = 0
        /// Bytes the connections hold now, as ``Options/maximumTotalBytes`` counts them.
        public var bytesHeld = 0
        /// The most they held at once.
        public var peakBytesHeld = 0
    }

    /// The settings.
    public let options: Options
    let core: RTMPServerCore

    /// Listens on `host:port` and starts accepting.
    /// - Parameters:
    ///   - host: a numeric local address: `127.0.0.1` (the default), `0.0.0.0` (every IPv4
    ///     interface), `::1`, `::`.
    ///   - port: 0...65535; 0 lets the system choose (see ``localPort``). 1935 is RTMP's.
    ///   - options: the server's settings.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a port or address that cannot be used or
    ///   a chunk size outside 128...65536; ``RTMPError/Code/io`` when the port is in use or the
    ///   system refuses a thread.
    public init(host: String = "127.0.0.1", port: Int = 1935, options: Options = Options()) throws(RTMPError) {
        guard (128...65536).contains(options.chunkSize) else {
            throw RTMPError.invalid(.invalidArgument, "RTMP chunk size \(options.chunkSize) outside 128...65536")
        }
        self.options = options
        core = try RTMPServerCore(host: host, port: port, options: options)
        try core.start()
    }

    deinit { core.close() }

    /// The port the server listens on (the one the system chose for port 0).
    public var localPort: Int { core.listener.localPort }

    /// The accepted publishes, as they start: take each and iterate it (see
    /// ``RTMPPublishedStreams``). Ends when the server is closed.
    public var publishedStreams: RTMPPublishedStreams { RTMPPublishedStreams(queue: core.published) }

    /// The counters now.
    public var statistics: Statistics { core.statistics }

    /// Stops listening and ends every connection at once (idempotent): waits wake wherever
    /// they are, publishes end with ``RTMPError/Code/cancelled``, ``publishedStreams`` ends.
    /// Also done when the server is released.
    public func close() { core.close() }
}

/// What the listener's thread and the connections' threads share: the listener, the interrupt,
/// the registry of connections and published stream names, the memory count.
final class RTMPServerCore: Sendable {
    struct Publisher {
        let connectionID: Int
        let handle: RTMPServerConnectionHandle
    }

    struct State {
        var statistics = RTMPServer.Statistics()
        var closed = false
        var nextConnectionID = 0
        /// Publishers by "application/stream name".
        var publishers: [String: Publisher] = [:]
    }

    let options: RTMPServer.Options
    let listener: TCPListener
    let interrupt: Interrupt
    let published: BoundedQueue<RTMPIngestStream>
    /// The relays to players, one per stream published.
    let relays: RTMPRelayRegistry
    let state = ThreadLock(State())

    init(host: String, port: Int, options: RTMPServer.Options) throws(RTMPError) {
        self.options = options
        let interrupt = Interrupt()
        self.interrupt = interrupt
        listener = try RTMPError.mapping { () throws(SocketError) in
            try TCPListener(address: host, port: port, backlog: 128, interrupt: interrupt)
        }
        published = BoundedQueue(capacity: options.maximumPendingPublishes, overflow: .dropNewest)
        relays = RTMPRelayRegistry(gopCacheBytes: options.gopCacheBytes, playerQueueBytes: options.playerQueueBytes)
    }

    var statistics: RTMPServer.Statistics { state.withLock { $0.statistics } }

    /// Starts the accept loop on a thread of its own (which holds the core, not the server).
    func start() throws(RTMPError) {
        do {
            try BlockingWorker.detach { [self] in acceptLoop() }
        } catch {
            listener.close()
            throw RTMPError.invalid(.io, "RTMP server: \(error)")
        }
    }

    func close() {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        interrupt.fire()
        published.close()
        relays.endAll()
    }

    private func acceptLoop() {
        while !interrupt.isFired {
            let socket: TCPSocket
            do {
                socket = try listener.accept(deadline: nil)
            } catch {
                if error.kind == .cancelled || error.kind == .connectionClosed { break }
                // Out of descriptors or another failure: wait a little rather than spin.
                _ = interrupt.waitUntilReadable(interrupt.readEnd, deadline: .after(.milliseconds(50)))
                continue
            }
            let id = state.withLock { s -> Int? in
                s.statistics.connectionsAccepted &+= 1  // one per accept
                guard !s.closed, s.statistics.connections < options.maximumConnections else {
                    s.statistics.connectionsRefused &+= 1
                    return nil
                }
                s.statistics.connections &+= 1  // below maximumConnections
                s.nextConnectionID &+= 1
                return s.nextConnectionID
            }
            guard let id else {
                socket.close()
                continue
            }
            let handle = RTMPServerConnectionHandle(id: id, socket: socket)
            do {
                try BlockingWorker.detach { [self] in
                    RTMPServerConnection(core: self, socket: socket, handle: handle).run()
                }
            } catch {
                handle.closeSocket()
                connectionEnded()
            }
        }
        listener.close()
    }

    /// A connection's thread is done.
    func connectionEnded() {
        state.withLock { $0.statistics.connections &-= 1 }  // counted when accepted
    }

    /// Adds `delta` to the bytes held by all connections.
    /// - Returns: false when a growth takes the total past ``RTMPServer/Options/maximumTotalBytes``
    ///   (the growth is counted all the same: the caller gives it back when it ends).
    func account(_ delta: Int) -> Bool {
        state.withLock { s -> Bool in
            s.statistics.bytesHeld &+= delta  // the sum of the connections' counts, each bounded
            s.statistics.peakBytesHeld = max(s.statistics.peakBytesHeld, s.statistics.bytesHeld)
            return delta <= 0 || s.statistics.bytesHeld <= options.maximumTotalBytes
        }
    }

    enum Claim {
        case claimed
        case inUse
        case closed
    }

    /// Takes the stream name `key` for a publisher, applying the duplicate policy.
    func claim(_ key: String, connectionID: Int, handle: RTMPServerConnectionHandle) -> Claim {
        let (result, replaced) = state.withLock { s -> (Claim, RTMPServerConnectionHandle?) in
            guard !s.closed else { return (.closed, nil) }
            let existing = s.publishers[key]
            if existing != nil && options.duplicatePublisher == .refuse { return (.inUse, nil) }
            s.publishers[key] = Publisher(connectionID: connectionID, handle: handle)
            if existing == nil { s.statistics.publishing &+= 1 }  // one per name published
            s.statistics.publishesAccepted &+= 1
            return (.claimed, existing?.handle)
        }
        replaced?.end(RTMPError.invalid(.cancelled, "another publisher replaced this one on '\(key)'"))
        return result
    }

    /// Gives the stream name back, unless another publisher has taken it since.
    func release(_ key: String, connectionID: Int) {
        state.withLock { s in
            guard s.publishers[key]?.connectionID == connectionID else { return }
            s.publishers[key] = nil
            s.statistics.publishing &-= 1  // counted when claimed
        }
    }

    func countRefusedPublish() {
        state.withLock { $0.statistics.publishesRefused &+= 1 }
    }
}

/// What other threads may do to a connection: end it (its waits wake), safely against the
/// connection's own thread closing the socket.
final class RTMPServerConnectionHandle: Sendable {
    let id: Int
    private let state: ThreadLock<(socket: TCPSocket?, reason: RTMPError?)>

    init(id: Int, socket: TCPSocket) {
        self.id = id
        state = ThreadLock((socket, nil))
    }

    /// Ends the connection from another thread: the socket is shut down (every wait on it
    /// wakes) and `reason` is what the connection reports.
    func end(_ reason: RTMPError) {
        state.withLock { s in
            if s.reason == nil { s.reason = reason }
            s.socket?.shutdownBothDirections()
        }
    }

    /// Why another thread ended the connection, if it did.
    var endReason: RTMPError? { state.withLock { $0.reason } }

    /// Closes the socket (the connection's own thread, at its end).
    func closeSocket() {
        state.withLock { s in
            s.socket?.close()
            s.socket = nil
        }
    }
}
