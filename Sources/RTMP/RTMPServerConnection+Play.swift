import FLV
import MediaSupport

/// `play`: a player's connection streams the relay of the stream it names
/// (``RTMPStreamRelay``), from its own thread.
extension RTMPServerConnection {
    /// A play in progress.
    struct Playing {
        /// The message stream the player plays on (made by its `createStream`).
        let streamID: UInt32
        let name: String
        let subscription: RTMPRelaySubscription
    }

    /// The most media bytes framed for a player before they are sent.
    static let playBatchBytes = 256 << 10
    /// The longest wait for media before the playing loop looks at what the player sent.
    static let playPollInterval: Duration = .milliseconds(50)

    /// `play`: the player subscribes to the stream published under the name it gives (in the
    /// application it connected to). Answered as players expect: User Control Stream Begin,
    /// onStatus `NetStream.Play.Reset` and `NetStream.Play.Start`, the data message
    /// `|RtmpSampleAccess`; then the metadata, the sequence headers and the last group of
    /// pictures (the relay's cache), then live. Refused with `NetStream.Play.StreamNotFound`
    /// when nothing is published under the name, `NetStream.Play.Failed` when the play hook
    /// (``RTMPServer/Options/authorizePlay``) rejects it; a refusal ends the connection.
    func play(_ arguments: [AMF0Value], streamID: UInt32) {
        guard playing == nil, publishing == nil else {
            return refusePlay(streamID, "NetStream.Play.Failed", "this connection plays or publishes already")
        }
        let (name, nameQuery) = RTMPPublishRequest.splitQuery(arguments.first?.string ?? "")
        guard !name.isEmpty, streamID != 0, streamID <= lastStreamID else {
            return refusePlay(streamID, "NetStream.Play.Failed", "play needs a stream name on a stream made by createStream")
        }
        if let authorizePlay = options.authorizePlay {
            let request = RTMPPublishRequest(action: .play, application: application, streamName: name,
                                             query: applicationQuery.merging(nameQuery) { $1 }, publishingType: "live",
                                             peerHost: socket.remoteAddress.host, peerPort: socket.remoteAddress.port,
                                             connectParameters: connectParameters ?? [])
            if case .reject(let reason) = authorizePlay(request) {
                return refusePlay(streamID, "NetStream.Play.Failed", reason)
            }
        }
        let key = application + "/" + name
        guard let subscription = core.relays.relay(for: key)?.subscribe() else {
            return refusePlay(streamID, "NetStream.Play.StreamNotFound", "'\(key)' is not being published")
        }
        var begin: [UInt8] = [0, 0]  // User Control event 0: Stream Begin
        begin.writeUInt32(streamID)
        session.send(RTMPMessage(.userControl, payload: begin), on: RTMPChunkStream.control)
        status(streamID, "status", "NetStream.Play.Reset", "Playing and resetting '\(name)'.")
        status(streamID, "status", "NetStream.Play.Start", "Started playing '\(name)'.")
        let access = AMF0.encode([.string("|RtmpSampleAccess"), .boolean(true), .boolean(true)])
        session.send(RTMPMessage(.dataAMF0, streamID: streamID, payload: access), on: RTMPChunkStream.data)
        playing = Playing(streamID: streamID, name: name, subscription: subscription)
    }

    private func refusePlay(_ streamID: UInt32, _ code: String, _ description: String) {
        status(streamID, "error", code, description)
        closing = true
    }

    /// Ends the play on `streamID` (nil: any): the player's `deleteStream` or `closeStream`, or
    /// the connection's end. The subscription is cancelled: the relay forgets it. A player that
    /// stopped has the setup and idle timeouts again to play or publish something else.
    func stopPlaying(streamID: UInt32? = nil) {
        guard let p = playing, streamID == nil || p.streamID == streamID else { return }
        p.subscription.cancel()
        playing = nil
        setupDeadline = .after(options.handshakeTimeout)
        idleDeadline = .after(options.idleTimeout)
    }

    /// One round of the playing loop: waits up to ``playPollInterval`` for the next message of
    /// the subscription, frames what waits (up to ``playBatchBytes``), sends it, then takes what
    /// the player sent without waiting.
    ///
    /// Each send has the idle timeout as its deadline: a player that does not read is ended
    /// there (``RTMPError/Code/timedOut``), while its queue in the relay drops whole groups of
    /// pictures, so neither the publisher nor the other players wait for it. When the
    /// publisher has gone, the player gets User Control Stream EOF and onStatus
    /// `NetStream.Play.UnpublishNotify` (FFmpeg and librtmp stop there), and the connection
    /// ends.
    func pumpPlayback() throws(RTMPError) {
        guard let p = playing else { return }
        guard !core.interrupt.isFired else { throw RTMPError.invalid(.cancelled, "the server closed") }
        var framed = 0
        var deadline = Deadline.after(Self.playPollInterval)
        while framed < Self.playBatchBytes, let m = p.subscription.next(deadline: deadline) {
            let chunkStream = switch m.typeID {
            case RTMPRelayMessage.audio: RTMPChunkStream.audio
            case RTMPRelayMessage.video: RTMPChunkStream.video
            default: RTMPChunkStream.data
            }
            session.send(RTMPMessage(typeID: m.typeID, streamID: p.streamID, timestamp: m.timestamp, payload: m.payload),
                         on: chunkStream)
            framed &+= m.payload.count  // at most playBatchBytes plus one message
            deadline = .now
        }
        if p.subscription.isEnded {
            var eof: [UInt8] = [0, 1]  // User Control event 1: Stream EOF
            eof.writeUInt32(p.streamID)
            session.send(RTMPMessage(.userControl, payload: eof), on: RTMPChunkStream.control)
            status(p.streamID, "status", "NetStream.Play.UnpublishNotify", "'\(p.name)' is no longer published.")
            playing = nil
            closing = true
        }
        try account()
        try flush()
        guard socket.isReadable else { return }
        let bytes = try RTMPError.mapping { () throws(SocketError) in
            try socket.receive(maximum: Self.readSize, deadline: .now)
        }
        session.receive(bytes[...])
        try account()
    }
}
