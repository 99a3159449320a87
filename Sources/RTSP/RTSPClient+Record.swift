import H264
import MediaSupport
import RTP

extension RTSPClient {
    // MARK: Publishing

    /// Announces an H.264 stream to the server, to publish it (RFC 2326 10.3 `ANNOUNCE`): an
    /// SDP with one video track (payload type 96, `a=control:streamid=0`) whose `a=fmtp`
    /// carries `format` (`packetization-mode`, `profile-level-id`, `sprop-parameter-sets`).
    /// Then ``record()`` and ``send(_:)-(AccessUnitSample)``.
    /// - Returns: the SDP sent.
    /// - Throws: as every request (``RTSPError/Code/requestFailed`` for a refusal).
    @discardableResult
    public func announce(_ format: H264FormatParameters) throws(RTSPError) -> RTSPSessionDescription {
        let text = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=\(options.userAgent)\r\nc=IN IP4 \(url.host.contains(":") ? "0::0" : "0.0.0.0")\r\n"
            + "t=0 0\r\na=control:*\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 \(format)\r\n"
            + "a=control:streamid=0\r\n"
        let description = try RTSPSessionDescription(parsing: text, base: url)
        _ = try request("ANNOUNCE", url.requestURI, [("Content-Type", "application/sdp")], body: Array(text.utf8))
        sessionDescription = description
        do throws(RTPError) {
            let packetizer = try RTPPacketizer(.init(mtu: 1400, payloadType: 96, ssrc: ownSSRC,
                                                     initialSequenceNumber: UInt16.random(in: 0...UInt16.max)))
            recording = Recording(packetizer: packetizer, control: description.tracks[0].url)
        } catch {
            throw RTSPError(error, "the packetiser")
        }
        return description
    }

    /// Sets the announced track up for recording over TCP (`SETUP` with
    /// `RTP/AVP/TCP;unicast;interleaved=0-1;mode=record`) and starts it (`RECORD` with
    /// `Range: npt=0.000-`): from here ``send(_:)-(AccessUnitSample)`` sends access units.
    /// - Throws: ``RTSPError/Code/invalidArgument`` before ``announce(_:)``; as every request.
    public func record() throws(RTSPError) {
        guard var state = recording, let description = sessionDescription else {
            throw RTSPError.invalid(.invalidArgument, "RECORD before ANNOUNCE")
        }
        let setup = try request("SETUP", state.control.requestURI, [("Transport", "RTP/AVP/TCP;unicast;interleaved=0-1;mode=record")],
                                sendsSession: false)
        noteSession(setup)
        _ = try request("RECORD", description.aggregateURL.requestURI, [("Range", "npt=0.000-")])
        state.recording = true
        state.nextKeepAlive = ContinuousClock.now.advanced(by: sessionTimeout / 2)
        recording = state
    }

    /// Sends one access unit to the server (after ``record()``): RTP packets (RFC 6184,
    /// packetization-mode 1, 1,400-byte packets) as interleaved frames on channel 0, its times
    /// converted to the 90 kHz clock. Keeps the session alive at half its timeout and reads
    /// what the server sends meanwhile (its RTCP, replies), so its buffers never fill.
    /// - Throws: ``RTSPError/Code/invalidArgument`` before ``record()``, the packetiser's
    ///   errors, the connection's (``RTSPError/Code/connectionClosed`` when the server hung up).
    public func send(_ sample: some AccessUnitSample) throws(RTSPError) {
        try send { (packetizer: inout RTPPacketizer, packets: inout RTPPacketBuffer) throws(RTPError) in
            try packetizer.packetize(sample, into: &packets)
        }
    }

    /// Sends one access unit already on the 90 kHz clock (`RTPAccessUnit`), as
    /// ``send(_:)-(AccessUnitSample)`` does a sample.
    /// - Throws: as ``send(_:)-(AccessUnitSample)``.
    public func send(_ accessUnit: RTPAccessUnit) throws(RTSPError) {
        try send { (packetizer: inout RTPPacketizer, packets: inout RTPPacketBuffer) throws(RTPError) in
            try packetizer.packetize(accessUnit, into: &packets)
        }
    }

    private func send(_ packetize: (inout RTPPacketizer, inout RTPPacketBuffer) throws(RTPError) -> Void) throws(RTSPError) {
        guard var state = recording, state.recording, let socket else {
            throw RTSPError.invalid(.invalidArgument, "send before RECORD")
        }
        recording = nil  // owned here while it changes: no copy of its buffers
        var failure: RTSPError?
        do throws(RTSPError) { try transmit(&state, socket, packetize) } catch { failure = error }
        recording = state
        if let failure { throw failure }
    }

    private func transmit(_ state: inout Recording, _ socket: TCPSocket,
                          _ packetize: (inout RTPPacketizer, inout RTPPacketBuffer) throws(RTPError) -> Void) throws(RTSPError) {
        try drainIncoming()
        let now = ContinuousClock.now
        if now >= state.nextKeepAlive {
            try sendKeepAlive()
            state.nextKeepAlive = now.advanced(by: sessionTimeout / 2)
        }
        state.packets.removeAll()
        do throws(RTPError) { try packetize(&state.packetizer, &state.packets) } catch {
            throw RTSPError(error, "packetising an access unit")
        }
        state.frame.removeAll(keepingCapacity: true)
        for i in 0..<state.packets.count {
            let packet = state.packets[i]  // at most the MTU: fits the 16-bit length
            state.frame += [UInt8(ascii: "$"), 0, UInt8(packet.count >> 8), UInt8(truncatingIfNeeded: packet.count)]
            state.frame += packet
        }
        let bytes = state.frame
        try RTSPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: .after(options.requestTimeout)) }
    }

    /// Reads what the server sent while the client publishes: interleaved frames (its RTCP)
    /// are dropped, replies checked (a keep-alive answered 454 ends the session), requests
    /// answered 501.
    private func drainIncoming() throws(RTSPError) {
        while let socket, socket.isReadable {
            switch try read(deadline: .now) {
            case .message(.response(let response)): try checkKeepAliveResponse(response)
            case .message(.request(_, let cseq)): try answerServerRequest(cseq)
            case .message(.interleaved): continue
            case .timedOut: return
            case .closed: throw RTSPError.invalid(.connectionClosed, "the server closed the connection while recording")
            }
        }
    }
}
