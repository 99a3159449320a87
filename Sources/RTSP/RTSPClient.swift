import H264
import MediaSupport
import RTP
import Synchronization

/// An RTSP client (RFC 2326, the RTSP 1.0 that cameras speak; URLs resolved as RFC 7826 says):
/// the session around the RTP receive path. It pulls one presentation: `OPTIONS`, `DESCRIBE`,
/// `SETUP` of each track over TCP (interleaved, `$` framing) or UDP (a port pair per track),
/// `PLAY`, keep-alive, `TEARDOWN`; Basic and Digest authentication; the H.264 track through
/// the library's depacketiser (`RTPReceiver`) into access units, other tracks out as RTP
/// packets; RTCP receiver reports, sender reports read for wall-clock time, and picture loss
/// indications when a reference picture is lost.
///
/// It treats the server as untrusted input: every response is bounded (``RTSPLimits``),
/// every request has a deadline (``Options/requestTimeout``), a stream that falls silent
/// ends with ``RTSPError/Code/timedOut`` after ``Options/silenceTimeout``, and ``cancel()``
/// ends any wait from any thread. Credentials (from the URL or ``Options/credentials``) are
/// sent only in `Authorization` headers, never put in an error's reason.
///
/// It also publishes (RFC 2326 10.3, 10.11): ``announce(_:)`` an H.264 stream, ``record()``,
/// then ``send(_:)-(AccessUnitSample)`` each access unit, interleaved over the connection.
///
/// The calls block their thread (each wait bounded): use it from a thread of its own, or take
/// the stream as an `AsyncSequence` with ``RTSPStream``.
///
/// ```swift
/// let client = try RTSPClient(url: "rtsp://user:secret@camera.local/stream1")
/// try client.start()                       // OPTIONS, DESCRIBE, SETUP, PLAY
/// let stop = try client.receive(until: { done }) { event in
///     if case .video(let accessUnit) = event { try recorder.write(accessUnit) }
/// }
/// client.close()                           // TEARDOWN
/// ```
///
/// Memory: the limits' message bound (the line, header and body limits of ``RTSPLimits``) and up to
/// ``RTSPLimits/maximumFramesBeforeResponse`` frames of 64 KiB while a response is awaited;
/// the receiver's bound (`RTPReceiver`) for the H.264 track; one 64 KiB datagram buffer; when
/// publishing, one access unit's packets and frames.
public final class RTSPClient: @unchecked Sendable {
    /// How the media travel.
    public enum Transport: Hashable, Sendable {
        /// Interleaved in the RTSP connection (RFC 2326 10.12): what crosses firewalls and NAT.
        case tcp
        /// RTP and RTCP on a UDP port pair per track (RFC 2326 12.39 `client_port`).
        case udp
    }

    /// Which keyframe request is sent when one is needed.
    public enum KeyframeRequest: Hashable, Sendable {
        /// A Picture Loss Indication (RFC 4585 6.3.1).
        case pli
        /// A Full Intra Request (RFC 5104 4.3.1): some sources answer it and not PLI.
        case fir
        /// Both in one compound packet.
        case pliAndFIR
    }

    /// The client's settings.
    public struct Options: Sendable {
        /// TCP interleaved (default) or UDP.
        public var transport: Transport
        /// Credentials for a server that asks; nil takes those of the URL, if any.
        public var credentials: RTSPCredentials?
        /// The deadline of each request (connect included), whatever the server sends.
        public var requestTimeout: Duration
        /// How long the media may stay silent (no RTP or RTCP of any track) before
        /// ``receive(until:_:)`` throws ``RTSPError/Code/timedOut``; also how long it waits
        /// for the first packet.
        public var silenceTimeout: Duration
        /// Bounds on what the server can make the client hold.
        public var limits: RTSPLimits
        /// The `User-Agent` header.
        public var userAgent: String
        /// Set up only the H.264 track (true), or every track (false, the default: other
        /// tracks come out as ``RTSPPacket``s).
        public var videoOnly: Bool
        /// The interval between RTCP receiver reports (RFC 3550 6.2: 5 s for a receiver that
        /// has not sent, each interval drawn from 0.5 to 1.5 times it).
        public var receiverReportInterval: Duration
        /// The request sent when a reference picture is lost or ``RTSPClient/requestKeyframe()``
        /// asks; nil sends none on loss (a request asked for is then a PLI).
        public var keyframeRequest: KeyframeRequest?
        /// The least time between two keyframe requests (RFC 4585 rate limit).
        public var keyframeRequestInterval: Duration
        /// Tolerate the RFC 6184 violations of `RTPTolerance` (default true: cameras).
        public var lenient: Bool
        /// Deliver nothing before the first access unit a decoder can start at
        /// (`RTPReceiver.Options.skipsUntilDecodable`).
        public var skipsUntilDecodable: Bool
        /// The numeric local address the UDP ports are bound to.
        public var udpAddress: String
        /// Over UDP, how many sequence numbers ahead a packet may arrive before the missing ones
        /// are declared lost (the depacketiser's reorder window, default 64). Over TCP nothing
        /// is reordered: a gap is a loss at once (window 1).
        public var reorderWindow: Int
        /// Over UDP, how long ``RTSPClient/receive(until:_:)`` waits for the first packet
        /// before it sets the session up again over TCP (a firewall or NAT that drops UDP);
        /// nil: no fallback, silence is ``silenceTimeout``'s. Default 3 s.
        public var udpFallbackTimeout: Duration?
        /// Redirects (`OPTIONS` or `DESCRIBE` answered 301, 302, 303, 305 or 307 with a
        /// `Location`) followed at most (default 3); one more is ``RTSPError/Code/requestFailed``.
        public var maximumRedirects: Int
        /// The `Range` of `PLAY` (default `npt=0.000-`: from the start). The access units'
        /// presentation times start at the range's start (the server's, when its reply has one).
        public var range: RTSPRange
        /// Over UDP, how long a packet may wait for those before it in the reorder window
        /// (`RTPDepacketizer.Options.maximumReorderDelay`, default 500 ms); past it the gap is
        /// declared lost.
        public var maximumReorderDelay: Duration?

        /// Creates options.
        public init(transport: Transport = .tcp, credentials: RTSPCredentials? = nil, requestTimeout: Duration = .seconds(10),
                    silenceTimeout: Duration = .seconds(10), limits: RTSPLimits = RTSPLimits(), userAgent: String = "swift-h264",
                    videoOnly: Bool = false, receiverReportInterval: Duration = .seconds(5), keyframeRequest: KeyframeRequest? = .pli,
                    keyframeRequestInterval: Duration = .seconds(1), lenient: Bool = true, skipsUntilDecodable: Bool = false,
                    udpAddress: String = "0.0.0.0", reorderWindow: Int = 64, udpFallbackTimeout: Duration? = .seconds(3),
                    maximumRedirects: Int = 3, range: RTSPRange = RTSPRange(), maximumReorderDelay: Duration? = .milliseconds(500)) {
            self.range = range
            self.maximumReorderDelay = maximumReorderDelay
            self.transport = transport
            self.credentials = credentials
            self.requestTimeout = requestTimeout
            self.silenceTimeout = silenceTimeout
            self.limits = limits
            self.userAgent = userAgent
            self.videoOnly = videoOnly
            self.receiverReportInterval = receiverReportInterval
            self.keyframeRequest = keyframeRequest
            self.keyframeRequestInterval = keyframeRequestInterval
            self.lenient = lenient
            self.skipsUntilDecodable = skipsUntilDecodable
            self.udpAddress = udpAddress
            self.reorderWindow = reorderWindow
            self.udpFallbackTimeout = udpFallbackTimeout
            self.maximumRedirects = maximumRedirects
        }
    }

    /// Why ``receive(until:_:)`` returned.
    public enum Stop: Hashable, Sendable {
        /// The caller's `until` said stop.
        case requested
        /// The H.264 source sent an RTCP BYE.
        case bye
        /// The server closed the connection (after `PLAY`: the end of the presentation).
        case closed
    }

    /// Counters of the session, read together.
    public struct Statistics: Hashable, Sendable {
        /// Requests sent (keep-alives included).
        public var requestsSent = 0
        /// Keep-alive requests sent.
        public var keepAlivesSent = 0
        /// RTCP compound packets sent (receiver reports, with feedback when asked).
        public var rtcpPacketsSent = 0
        /// Picture loss indications (or FIRs) sent.
        public var keyframeRequestsSent = 0
        /// Interleaved frames on channels that were never set up, ignored.
        public var framesOnUnknownChannels = 0
        /// Interleaved frames dropped while a response was awaited, past
        /// ``RTSPLimits/maximumFramesBeforeResponse``.
        public var framesDroppedBeforeResponse = 0
        /// RTP packets of other tracks delivered.
        public var packetsDelivered = 0
        /// Packets of other tracks that are not RTP (too short, another version), ignored.
        public var packetsRejected = 0
        /// Redirects followed.
        public var redirects = 0
        /// True once a UDP session was set up again over TCP.
        public var fellBackToTCP = false
        /// Packets of other tracks ignored because they came before the first sequence number
        /// of the `PLAY` reply's `RTP-Info` (the H.264 track's are in
        /// `RTPLossReport.packetsBeforeStart`).
        public var packetsBeforeStart = 0
    }

    /// The URL (its user information kept out of ``RTSPURL/description``): the one given, or
    /// where the server redirected `OPTIONS` or `DESCRIBE` (3xx with `Location`).
    public private(set) var url: RTSPURL
    /// The transport in use: ``Options/transport``, or TCP once a UDP session fell back
    /// (``Options/udpFallbackTimeout``).
    public private(set) var transport: Transport
    /// The settings.
    public let options: Options
    /// The `DESCRIBE` result, once ``describe()`` has run.
    public internal(set) var sessionDescription: RTSPSessionDescription?
    /// The methods the server listed in `Public` (``requestOptions()``).
    public private(set) var publicMethods: [String] = []
    /// The tracks set up, in order (``setup()``).
    public private(set) var setUpTracks: [RTSPTrack] = []
    /// The session id the server gave in `SETUP`.
    public internal(set) var sessionID: String?
    /// The server's session timeout (`Session: id;timeout=n`, 60 s when absent, RFC 2326 12.37).
    public internal(set) var sessionTimeout: Duration = .seconds(60)
    /// The `RTP-Info` of the `PLAY` reply, per track set up (nil where the server gave none).
    public private(set) var rtpInfo: [RTSPTrack.RTPInfo?] = []
    /// The range being played: the `Range` of the `PLAY` reply, or the one asked for
    /// (``Options/range``) when the reply has none that parses (nil before ``play()``).
    public private(set) var playedRange: RTSPRange?
    /// Counters so far.
    public var statistics: Statistics { stats }
    /// The H.264 track's reception report: received, lost, reordered, access units.
    public var report: RTPLossReport { receiver?.report ?? RTPLossReport() }
    /// The interarrival jitter of the H.264 track (RFC 3550 A.8, the value its receiver
    /// reports carry) converted from its RTP clock to a `Duration`; zero before two packets.
    public var videoJitter: Duration {
        guard let state = trackState.first(where: { $0.isVideo }) else { return .zero }
        let rate = Int64(max(state.track.clockRate, 1))
        return .nanoseconds(Int64(state.reception.jitter) &* 1_000_000_000 / rate)  // jitter < 2^32
    }

    private let interrupt = Interrupt()
    private let keyframeAsked = Atomic<Bool>(false)
    private let credentials: RTSPCredentials?
    var socket: TCPSocket?
    private var reader: RTSPMessageReader
    private var cseq = 0
    private var authenticator: RTSPAuthenticator?
    private var stats = Statistics()
    private var pending: [(channel: UInt8, payload: [UInt8])] = []
    private var pendingIndex = 0
    private var closedAfterPlay = false
    private var channels: [Channel] = []
    private var receiver: RTPReceiver?
    private var udp: [UDPSocketPair] = []
    private var udpRTCPTargets: [SocketAddress?] = []
    let ownSSRC: UInt32
    private let started = ContinuousClock.now
    private var lastKeyframeRequest: ContinuousClock.Instant?
    private var firSequence: UInt8 = 0
    private var trackState: [TrackState] = []
    private var redirects = 0
    /// Publishing (``announce(_:)``, ``record()``, ``send(_:)-(AccessUnitSample)``): the packetiser and its
    /// buffer, the control URL set up, when the next keep-alive is due.
    var recording: Recording?

    struct Recording {
        var packetizer: RTPPacketizer
        var packets = RTPPacketBuffer()
        var frame: [UInt8] = []
        var control: RTSPURL
        var nextKeepAlive: ContinuousClock.Instant = .now
        var recording = false
    }

    /// Where a track's interleaved channels lead.
    private struct Channel {
        var number: UInt8
        var track: Int
        var isRTCP: Bool
    }

    /// What is kept per track set up.
    private struct TrackState {
        var track: RTSPTrack
        var isVideo: Bool
        var reception = RTPReceptionStatistics()
        var senderReport: RTCPSenderReport?
        var rtpChannel: UInt8 = 0
        var rtcpChannel: UInt8 = 1
        /// The `RTP-Info` `seq` of a track other than the H.264 one, until a packet at or after it
        /// came (those before it are ignored).
        var firstSequence: UInt16?
    }

    /// Creates a client; nothing is sent until the first request.
    /// - Parameters:
    ///   - url: `rtsp://[user[:password]@]host[:port]/path`.
    ///   - options: the settings.
    /// - Throws: ``RTSPError/Code/invalidArgument`` for a URL that does not parse.
    public init(url: String, options: Options = Options()) throws(RTSPError) {
        let parsed = try RTSPURL(url)
        self.url = parsed
        self.options = options
        self.transport = options.transport
        if let given = options.credentials {
            credentials = given
        } else if let user = parsed.user {
            credentials = RTSPCredentials(user: user, password: parsed.password ?? "")
        } else {
            credentials = nil
        }
        reader = RTSPMessageReader(limits: options.limits)
        var g = SystemRandomNumberGenerator()
        ownSSRC = UInt32.random(in: 1...UInt32.max, using: &g)
    }

    deinit { socket?.close() }

    // MARK: From any thread

    /// Ends the wait in progress and every later one with ``RTSPError/Code/cancelled``, from
    /// any thread; the connection is closed without `TEARDOWN`.
    public func cancel() { interrupt.fire() }

    /// Asks the H.264 source for a keyframe (``Options/keyframeRequest``, or a PLI when that is
    /// nil), from any thread: sent by ``receive(until:_:)`` within 250 ms, subject to
    /// ``Options/keyframeRequestInterval``.
    public func requestKeyframe() { keyframeAsked.store(true, ordering: .releasing) }

    // MARK: The session

    /// `OPTIONS`, `DESCRIBE`, `SETUP` of the tracks, `PLAY`: the session ready for
    /// ``receive(until:_:)``.
    /// - Throws: as each of them.
    public func start() throws(RTSPError) {
        try requestOptions()
        try describe()
        try setup()
        try play()
    }

    /// Sends `OPTIONS` and keeps the `Public` methods (the keep-alive uses `GET_PARAMETER`
    /// when listed, else `OPTIONS`).
    /// - Throws: ``RTSPError``: the connection's, the limits', a non-2xx status.
    @discardableResult
    public func requestOptions() throws(RTSPError) -> RTSPResponse {
        let response = try request("OPTIONS", url.requestURI)
        publicMethods = (response[header: "Public"] ?? "").split(separator: ",").map { $0.trimmingSpaces.uppercased() }
        return response
    }

    /// Sends `DESCRIBE` and reads the SDP; the controls resolved against `Content-Base`,
    /// else `Content-Location`, else the URL.
    /// - Throws: ``RTSPError/Code/invalidResponse`` for an SDP that does not parse or has no
    ///   track; as every request.
    @discardableResult
    public func describe() throws(RTSPError) -> RTSPSessionDescription {
        let response = try request("DESCRIBE", url.requestURI, [("Accept", "application/sdp")])
        var base = url
        if let text = response[header: "Content-Base"] ?? response[header: "Content-Location"] {
            guard let resolved = url.resolving(text) else {
                throw RTSPError.invalid(.invalidResponse, "Content-Base '\(text.prefix(80))' does not parse")
            }
            base = resolved
        }
        let description = try RTSPSessionDescription(parsing: String(decoding: response.body, as: UTF8.self), base: base,
                                                     maximumMediaCount: options.limits.maximumMediaCount)
        guard !description.tracks.isEmpty else { throw RTSPError.invalid(.invalidResponse, "the SDP has no media section") }
        sessionDescription = description
        return description
    }

    /// Sends `SETUP` for the H.264 track and, unless ``Options/videoOnly``, every other track,
    /// over ``Options/transport``. Over TCP the interleaved channels are those of the server's
    /// `Transport` reply, or the ones asked for (2n, 2n+1) when it omits them; over UDP each
    /// track gets a bound port pair, RTCP going to the server's `server_port` pair.
    /// - Throws: ``RTSPError/Code/invalidResponse`` without a ``describe()`` first or without
    ///   an H.264 track; as every request.
    public func setup() throws(RTSPError) {
        guard let description = sessionDescription else { try describe(); return try setup() }
        guard description.videoTrack != nil else {
            throw RTSPError.invalid(.unsupported, "the presentation has no H.264 track")
        }
        let chosen = description.tracks.filter { $0.isH264 && $0.index == description.videoTrack?.index || !options.videoOnly }
        for track in chosen {
            let isVideo = track.index == description.videoTrack?.index
            var state = TrackState(track: track, isVideo: isVideo)
            let n = UInt8(clamping: setUpTracks.count &* 2)  // tracks bounded by the media count
            let asked: String
            var pair: UDPSocketPair?
            switch transport {
            case .tcp:
                asked = "RTP/AVP/TCP;unicast;interleaved=\(n)-\(n &+ 1)"
            case .udp:
                let p = try Self.bindPortPair(address: options.udpAddress)
                pair = p
                asked = "RTP/AVP;unicast;client_port=\(p.rtp.localPort)-\(p.rtp.localPort + 1)"
            }
            var headers = [("Transport", asked)]
            if let sessionID { headers.append(("Session", sessionID)) }
            let response = try request("SETUP", track.url.requestURI, headers, sendsSession: false)
            let reply = RTSPTransportHeader(response[header: "Transport"] ?? "")
            noteSession(response)
            switch transport {
            case .tcp:
                let (rtp, rtcp) = reply.interleaved ?? (n, n &+ 1)
                state.rtpChannel = rtp
                state.rtcpChannel = rtcp
                channels.append(Channel(number: rtp, track: trackState.count, isRTCP: false))
                channels.append(Channel(number: rtcp, track: trackState.count, isRTCP: true))
            case .udp:
                guard let pair else { break }
                udp.append(pair)
                var target: SocketAddress?
                if let ports = reply.serverPorts, let remote = socket?.remoteAddress {
                    let host = reply.source ?? remote.host
                    target = try? SocketAddress.resolve(host, port: Int(ports.1), transport: .udp, numericOnly: true).first
                }
                udpRTCPTargets.append(target)
            }
            if isVideo {
                var receiverOptions = RTPReceiver.Options(depacketizer: .init(reorderWindow: transport == .tcp ? 1 : options.reorderWindow,
                                                                              payloadType: track.payloadType,
                                                                              packetizationMode: track.h264?.packetizationMode == 0 ? 0 : 1,
                                                                              lenient: options.lenient,
                                                                              maximumReorderDelay: options.maximumReorderDelay),
                                                          skipsUntilDecodable: options.skipsUntilDecodable)
                do throws(RTPError) {
                    receiverOptions.parameterSets = try track.h264?.parameterSetNALUnits() ?? []
                    receiver = try RTPReceiver(receiverOptions)
                } catch {
                    throw RTSPError(error, "the H.264 track's parameters")
                }
            }
            trackState.append(state)
            setUpTracks.append(track)
        }
    }

    /// Sends `PLAY` for the aggregate URL with ``Options/range`` (`Range: npt=0.000-` by
    /// default) and aligns each track with the reply (RFC 2326 12.33 `RTP-Info`, 12.29
    /// `Range`): packets before a track's `seq` are ignored (sent before the `PLAY` took
    /// effect), and the H.264 track's `rtptime` is the start of the range played
    /// (``playedRange``), so the access units' presentation times begin there. A reply without
    /// `RTP-Info`, or without `seq` or `rtptime` (cameras omit them), is tolerated: no packet is
    /// ignored, and the first access unit is at the range's start. Interleaved frames that
    /// arrive before the reply are kept (``RTSPLimits/maximumFramesBeforeResponse``) and
    /// delivered first by ``receive(until:_:)``, after the alignment.
    /// - Throws: as every request.
    @discardableResult
    public func play() throws(RTSPError) -> RTSPResponse {
        guard let description = sessionDescription, !setUpTracks.isEmpty else {
            throw RTSPError.invalid(.invalidArgument, "PLAY before SETUP")
        }
        let response = try request("PLAY", description.aggregateURL.requestURI, [("Range", options.range.description)])
        let infos = RTSPTrack.RTPInfo.parse(response[header: "RTP-Info"] ?? "")
        let base = description.base
        rtpInfo = setUpTracks.map { track in
            infos.first { info in
                let relative = base.resolving(info.url)?.requestURI, absolute = url.resolving(info.url)?.requestURI
                return absolute == track.url.requestURI || relative == track.url.requestURI || info.url == track.control
            } ?? (infos.count == 1 && setUpTracks.count == 1 ? infos.first : nil)  // one track: its entry, whatever its url
        }
        var played = response[header: "Range"].flatMap(RTSPRange.init(parsing:)) ?? options.range
        if played.start == nil { played.start = options.range.start }  // `now`: no time known, the one asked for
        playedRange = played
        for index in trackState.indices {
            let info = index < rtpInfo.count ? rtpInfo[index] : nil
            if trackState[index].isVideo {
                receiver?.align(sequenceNumber: info?.sequenceNumber, rtpTimestamp: info?.rtpTimestamp,
                                presentationTime: played.startTicks)
            } else {
                trackState[index].firstSequence = info?.sequenceNumber
            }
        }
        return response
    }

    /// Sends `TEARDOWN` (best effort, within a second) and closes the connection and the
    /// ports. Idempotent.
    public func close() {
        if let socket, socket.isOpen, sessionID != nil, !interrupt.isFired, let description = sessionDescription {
            let bytes = requestBytes("TEARDOWN", description.aggregateURL.requestURI, [])
            _ = try? RTSPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: .after(.seconds(1))) }
        }
        socket?.close()
        socket = nil
        udp = []
    }

    // MARK: Receiving

    /// Receives the media until `until` says stop, the H.264 source sends BYE, or the server
    /// closes the connection; keeps the session alive (at half ``sessionTimeout``:
    /// `GET_PARAMETER` when the server lists it, else `OPTIONS`), sends receiver reports
    /// (``Options/receiverReportInterval``) and keyframe requests (a lost reference picture,
    /// or ``requestKeyframe()``).
    ///
    /// Access units of the H.264 track come out as ``RTSPEvent/video(_:)`` with the
    /// receiver's times (`RTPReceivedAccessUnit.timestamps`) and, once a sender report has
    /// arrived, its wall-clock time (`RTPReceivedAccessUnit.ntpTimestamp`); packets of other
    /// tracks as ``RTSPEvent/packet(_:)``.
    /// - Parameters:
    ///   - until: asked at least every 250 ms.
    ///   - deliver: called with each event; an error it throws ends the loop and is rethrown.
    /// - Returns: why it stopped (what the receiver holds is delivered first).
    /// - Throws: ``RTSPError/Code/timedOut`` when no packet arrived for
    ///   ``Options/silenceTimeout``; ``RTSPError/Code/cancelled``; the connection's errors;
    ///   what `deliver` throws.
    public func receive(until: () -> Bool = { false }, _ deliver: (RTSPEvent) throws -> Void) throws -> Stop {
        guard !setUpTracks.isEmpty else { throw RTSPError.invalid(.invalidArgument, "receive before SETUP and PLAY") }
        return try withoutActuallyEscaping(deliver) { deliver in try withoutActuallyEscaping(until) { until in
            try receiveLoop(until: until, deliver)
        } }
    }

    private func receiveLoop(until: @escaping () -> Bool, _ deliver: @escaping (RTSPEvent) throws -> Void) throws -> Stop {
        let clock = ContinuousClock()
        var lastMedia = clock.now
        let loopStart = clock.now
        var anyMedia = false
        var nextKeepAlive = clock.now.advanced(by: sessionTimeout / 2)
        var nextReport = clock.now.advanced(by: reportInterval())
        var failure: (any Error)?
        var buffer: [UInt8] = []
        var preferred = 0
        let sink = { (event: RTSPEvent) in
            guard failure == nil else { return }
            do { try deliver(event) } catch { failure = error }
        }
        func finish() throws {
            receiver?.finish { sink(.video($0)) }
            if let failure { throw failure }
        }
        while pendingIndex < pending.count {
            let frame = pending[pendingIndex]
            pendingIndex &+= 1
            lastMedia = clock.now
            handleFrame(channel: frame.channel, frame.payload[...], sink)
            if let failure { throw failure }
        }
        pending = []
        pendingIndex = 0
        if closedAfterPlay {
            try finish()
            return .closed
        }
        while true {
            if until() {
                try finish()
                return .requested
            }
            if receiver?.byeReceived == true {
                try finish()
                return .bye
            }
            receiver?.releaseExpired(at: clock.now) { sink(.video($0)) }
            if let failure { throw failure }
            try RTSPError.mapping { () throws(SocketError) in try interrupt.check("receive") }
            let now = clock.now
            if transport == .udp, !anyMedia, let fallback = options.udpFallbackTimeout, now >= loopStart.advanced(by: fallback) {
                try fallBackToTCP()
                lastMedia = clock.now
                continue
            }
            guard now < lastMedia.advanced(by: options.silenceTimeout) else {
                throw RTSPError.invalid(.timedOut, "no media from \(url) for \(options.silenceTimeout)")
            }
            if now >= nextKeepAlive {
                try sendKeepAlive()
                nextKeepAlive = now.advanced(by: sessionTimeout / 2)
            }
            let asked = keyframeAsked.exchange(false, ordering: .acquiringAndReleasing)
            let needed = options.keyframeRequest != nil && receiver?.needsKeyframe == true
            var keyframe = false
            if asked || needed {
                if lastKeyframeRequest.map({ now >= $0.advanced(by: options.keyframeRequestInterval) }) ?? true {
                    keyframe = true
                    lastKeyframeRequest = now
                } else if asked {
                    keyframeAsked.store(true, ordering: .releasing)  // kept for when the interval has passed
                }
            }
            if now >= nextReport || keyframe {
                try sendReports(keyframe: keyframe, at: now)
                if now >= nextReport { nextReport = now.advanced(by: reportInterval()) }
            }
            var wake = min(nextKeepAlive, nextReport, lastMedia.advanced(by: options.silenceTimeout), now.advanced(by: .milliseconds(250)))
            if let due = receiver?.releaseDeadline { wake = max(now, min(wake, due)) }
            if let last = lastKeyframeRequest, keyframeAsked.load(ordering: .acquiring) || receiver?.needsKeyframe == true {
                wake = max(now, min(wake, last.advanced(by: options.keyframeRequestInterval)))
            }
            let deadline = Deadline(wake)
            switch transport {
            case .tcp:
                let incoming: RTSPIncoming
                switch try read(deadline: deadline) {
                case .timedOut: continue
                case .closed:
                    try finish()
                    return .closed
                case .message(let message): incoming = message
                }
                switch incoming {
                case .interleaved(let channel, let payload):
                    lastMedia = clock.now
                    handleFrame(channel: channel, payload[...], sink)
                case .response(let response):
                    try checkKeepAliveResponse(response)
                case .request(_, let cseq):
                    try answerServerRequest(cseq)
                }
            case .udp:
                if let socket, socket.isReadable {
                    switch try read(deadline: .now) {
                    case .message(.response(let response)): try checkKeepAliveResponse(response)
                    case .message(.request(_, let cseq)): try answerServerRequest(cseq)
                    case .message(.interleaved), .timedOut: break
                    case .closed:
                        try finish()
                        return .closed
                    }
                }
                let sockets = udp.flatMap { [$0.rtp.socket] + ($0.rtcp.map { [$0.socket] } ?? []) }
                if buffer.count < UDPSocket.maximumDatagramSize { buffer = [UInt8](repeating: 0, count: UDPSocket.maximumDatagramSize) }
                let wait = socket?.isReadable == true ? Deadline.now : deadline
                guard let received = try RTSPError.mapping({ () throws(SocketError) in
                    try Self.receiveDatagram(from: sockets, preferred: preferred, into: &buffer, deadline: wait)
                }) else { continue }
                preferred &+= 1
                if preferred >= sockets.count { preferred = 0 }
                lastMedia = clock.now
                anyMedia = true
                let track = received.index / 2, isRTCP = received.index % 2 == 1
                handlePacket(track: track, isRTCP: isRTCP, buffer[..<received.count], sink)
            }
            if let failure { throw failure }
        }
    }

    // MARK: Requests

    private func requestBytes(_ method: String, _ uri: String, _ extra: [(String, String)], sendsSession: Bool = true,
                              body: [UInt8] = []) -> [UInt8] {
        cseq &+= 1  // one per request: never near Int.max
        var headers = extra
        headers.append(("User-Agent", options.userAgent))
        if sendsSession, let sessionID { headers.append(("Session", sessionID)) }
        if var authenticator, let credentials {
            headers.append(("Authorization", authenticator.authorization(credentials, method: method, uri: uri)))
            self.authenticator = authenticator
        }
        return rtspRequestBytes(method: method, uri: uri, cseq: cseq, headers: headers, body: body)
    }

    private func connectIfNeeded() throws(RTSPError) -> TCPSocket {
        if let socket { return socket }
        let made = try RTSPError.mapping { () throws(SocketError) in
            try TCPSocket.connect(to: url.host, port: url.port, deadline: .after(options.requestTimeout), interrupt: interrupt)
        }
        socket = made
        return made
    }

    /// Sends a request and waits for its response (matched by `CSeq`; one without `CSeq` is
    /// taken as this request's), answering a 401 once with the credentials (again when the
    /// server says the nonce went stale).
    func request(_ method: String, _ uri: String, _ extra: [(String, String)] = [],
                 sendsSession: Bool = true, body: [UInt8] = []) throws(RTSPError) -> RTSPResponse {
        var uri = uri
        var attempts = 0
        while true {
            attempts &+= 1
            let socket = try connectIfNeeded()
            let bytes = requestBytes(method, uri, extra, sendsSession: sendsSession, body: body)
            let sent = cseq
            let deadline = Deadline.after(options.requestTimeout)
            try RTSPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: deadline) }
            stats.requestsSent &+= 1
            let response = try awaitResponse(cseq: sent, method: method, deadline: deadline)
            if response.statusCode == 401 {
                let challenges = response.values(of: "WWW-Authenticate")
                guard let credentials else {
                    throw RTSPError.invalid(.unauthorized, "\(method) \(url): the server asks for credentials and none were given")
                }
                _ = credentials
                let stale = RTSPAuthenticator.isStale(challenges)
                guard attempts == 1 || (stale && attempts <= 3) else {
                    throw RTSPError.invalid(.unauthorized, "\(method) \(url): the server refused the credentials (401)")
                }
                authenticator = try RTSPAuthenticator.choose(from: challenges)
                continue
            }
            if [301, 302, 303, 305, 307].contains(response.statusCode), method == "OPTIONS" || method == "DESCRIBE",
               uri == url.requestURI, let location = response[header: "Location"] {
                guard redirects < options.maximumRedirects else {
                    throw RTSPError.invalid(.requestFailed, "\(method) \(url): more than \(options.maximumRedirects) redirects")
                }
                guard let target = url.resolving(location) else {
                    throw RTSPError.invalid(.invalidResponse, "\(method) \(url): a redirect to a Location that does not parse")
                }
                redirects &+= 1
                stats.redirects = redirects
                if target.host != url.host || target.port != url.port { resetConnection() }
                url = target
                uri = target.requestURI
                attempts = 0
                continue
            }
            guard response.isSuccess else {
                throw RTSPError.invalid(.requestFailed, "\(method) \(URLText(uri)): \(response.statusCode) \(response.reasonPhrase.prefix(80))")
            }
            return response
        }
    }

    /// Closes the connection and forgets what belonged to it (the reader's bytes, the
    /// frames kept, the authentication of that server).
    private func resetConnection() {
        socket?.close()
        socket = nil
        reader = RTSPMessageReader(limits: options.limits)
        authenticator = nil
        pending = []
        pendingIndex = 0
    }

    /// Ends the UDP session (closing the connection ends it at the server) and sets the
    /// tracks up again over TCP, then plays.
    private func fallBackToTCP() throws(RTSPError) {
        resetConnection()
        sessionID = nil
        channels = []
        udp = []
        udpRTCPTargets = []
        trackState = []
        setUpTracks = []
        receiver = nil
        transport = .tcp
        stats.fellBackToTCP = true
        try setup()
        try play()
    }

    enum Read {
        case message(RTSPIncoming)
        case timedOut
        case closed
    }

    /// The next message from the connection by `deadline`.
    func read(deadline: Deadline) throws(RTSPError) -> Read {
        guard let socket else { return .closed }
        do {
            return .message(try reader.next(from: socket, deadline: deadline))
        } catch {
            switch error.code {
            case .timedOut: return .timedOut
            case .connectionClosed: return .closed
            default: throw error
            }
        }
    }

    private func awaitResponse(cseq: Int, method: String, deadline: Deadline) throws(RTSPError) -> RTSPResponse {
        while true {
            let incoming: RTSPIncoming
            switch try read(deadline: deadline) {
            case .timedOut: throw RTSPError.invalid(.timedOut, "\(method) \(url): no response within \(options.requestTimeout)")
            case .closed: throw RTSPError.invalid(.connectionClosed, "\(method) \(url): the server closed the connection")
            case .message(let message): incoming = message
            }
            switch incoming {
            case .response(let response):
                if let text = response[header: "CSeq"], let n = Int(text), n != cseq { continue }  // a late keep-alive reply
                return response
            case .interleaved(let channel, let payload):
                if pending.count &- pendingIndex < options.limits.maximumFramesBeforeResponse {
                    pending.append((channel, payload))
                } else {
                    stats.framesDroppedBeforeResponse &+= 1
                }
            case .request(_, let cseq):
                try answerServerRequest(cseq)
            }
        }
    }

    func answerServerRequest(_ cseq: String?) throws(RTSPError) {
        guard let socket else { return }
        var text = "RTSP/1.0 501 Not Implemented\r\n"
        if let cseq { text += "CSeq: \(cseq.prefix(16))\r\n" }
        text += "\r\n"
        try RTSPError.mapping { () throws(SocketError) in try socket.send(Array(text.utf8), deadline: .after(options.requestTimeout)) }
    }

    /// Keeps the session id and timeout of a `SETUP` reply (`Session: id;timeout=n`).
    func noteSession(_ response: RTSPResponse) {
        guard let session = response[header: "Session"] else { return }
        let parts = session.split(separator: ";")
        sessionID = parts.first.map { $0.trimmingSpaces }
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingSpaces.lowercased() == "timeout", let s = Int(kv[1].trimmingSpaces), s > 0 {
                sessionTimeout = .seconds(min(s, 86_400))
            }
        }
    }

    func sendKeepAlive() throws(RTSPError) {
        guard let socket, let description = sessionDescription else { return }
        let method = publicMethods.contains("GET_PARAMETER") ? "GET_PARAMETER" : "OPTIONS"
        let uri = method == "OPTIONS" ? url.requestURI : description.aggregateURL.requestURI
        let bytes = requestBytes(method, uri, [])
        try RTSPError.mapping { () throws(SocketError) in try socket.send(bytes, deadline: .after(options.requestTimeout)) }
        stats.requestsSent &+= 1
        stats.keepAlivesSent &+= 1
    }

    func checkKeepAliveResponse(_ response: RTSPResponse) throws(RTSPError) {
        if response.statusCode == 454 {
            throw RTSPError.invalid(.requestFailed, "keep-alive of \(url): 454 Session Not Found")
        }
    }

    /// The next receiver-report interval: ``Options/receiverReportInterval`` times a random
    /// factor in 0.5...1.5 (RFC 3550 6.3.1).
    private func reportInterval() -> Duration {
        var g = SystemRandomNumberGenerator()
        return options.receiverReportInterval * Double.random(in: 0.5...1.5, using: &g)
    }

    // MARK: Media

    private func handleFrame(channel: UInt8, _ payload: ArraySlice<UInt8>, _ sink: (RTSPEvent) -> Void) {
        guard let c = channels.first(where: { $0.number == channel }) else {
            stats.framesOnUnknownChannels &+= 1
            return
        }
        handlePacket(track: c.track, isRTCP: c.isRTCP, payload, sink)
    }

    private func handlePacket(track index: Int, isRTCP: Bool, _ payload: ArraySlice<UInt8>, _ sink: (RTSPEvent) -> Void) {
        guard index < trackState.count else { return }
        let arrival = ContinuousClock.now
        if isRTCP {
            if trackState[index].isVideo { receiver?.receive(payload, channel: .rtcp) { sink(.video($0)) } }
            if let packets = try? RTCP.packets(in: payload) {
                for case .senderReport(let report) in packets {
                    trackState[index].senderReport = report
                    trackState[index].reception.recordSenderReport(ntpTimestamp: report.ntpTimestamp, at: arrival)
                }
            }
            return
        }
        if payload.count >= 12 {
            let s = payload.startIndex
            let sequence = UInt16(payload[s &+ 2]) << 8 | UInt16(payload[s &+ 3])
            let timestamp = UInt32(payload[s &+ 4]) << 24 | UInt32(payload[s &+ 5]) << 16 | UInt32(payload[s &+ 6]) << 8 | UInt32(payload[s &+ 7])
            let ssrc = UInt32(payload[s &+ 8]) << 24 | UInt32(payload[s &+ 9]) << 16 | UInt32(payload[s &+ 10]) << 8 | UInt32(payload[s &+ 11])
            let rate = Int64(max(trackState[index].track.clockRate, 1))
            let (seconds, attoseconds) = started.duration(to: arrival).components
            // seconds of a session (< 2^40) times a clock rate (< 2^24): no overflow.
            let ticks = seconds &* rate &+ (attoseconds / 1_000_000_000) &* rate / 1_000_000_000
            if payload[s] >> 6 == 2 && !RTCP.isMultiplexedRTCP(payload) {
                trackState[index].reception.record(ssrc: ssrc, sequenceNumber: sequence, timestamp: timestamp, arrival: ticks)
            }
        }
        if trackState[index].isVideo {
            receiver?.receive(payload, channel: .rtp, arrival: arrival) { sink(.video($0)) }
            return
        }
        guard let packet = try? RTPPacket(parsing: payload) else {
            stats.packetsRejected &+= 1
            return
        }
        if let first = trackState[index].firstSequence {
            // Before the announced first packet (within RFC 3550's MAX_DROPOUT): sent before the PLAY.
            let distance = Int16(bitPattern: packet.header.sequenceNumber &- first)
            if distance < 0 && distance >= -Int16(RTPDepacketizer.maximumDropout) {
                stats.packetsBeforeStart &+= 1
                return
            }
            trackState[index].firstSequence = nil
        }
        let ntp = trackState[index].senderReport.flatMap { report in
            report.ssrc == packet.header.ssrc
                ? report.ntpTimestamp(at: packet.header.timestamp, clockRate: trackState[index].track.clockRate) : nil
        }
        stats.packetsDelivered &+= 1
        sink(.packet(RTSPPacket(track: trackState[index].track.index, header: packet.header, payload: Array(packet.payload),
                                ntpTimestamp: ntp)))
    }

    /// A receiver report for each track with its reception blocks, with a keyframe request
    /// for the H.264 source appended when asked.
    private func sendReports(keyframe: Bool, at now: ContinuousClock.Instant) throws(RTSPError) {
        for index in trackState.indices {
            guard let block = trackState[index].reception.makeReportBlock(at: now) else { continue }
            var feedback: [UInt8] = []
            if keyframe && trackState[index].isVideo {
                let media = block.ssrc
                switch options.keyframeRequest ?? .pli {
                case .pli: feedback = RTCP.pictureLossIndication(sender: ownSSRC, mediaSource: media)
                case .fir:
                    firSequence &+= 1  // an 8-bit counter that wraps (RFC 5104 4.3.1.1)
                    feedback = RTCP.fullIntraRequest(sender: ownSSRC, mediaSource: media, sequenceNumber: firSequence)
                case .pliAndFIR:
                    firSequence &+= 1
                    feedback = RTCP.pictureLossIndication(sender: ownSSRC, mediaSource: media)
                        + RTCP.fullIntraRequest(sender: ownSSRC, mediaSource: media, sequenceNumber: firSequence)
                }
                stats.keyframeRequestsSent &+= 1
            }
            let compound = RTCP.receiverReport(ssrc: ownSSRC, blocks: [block], cname: "swift-h264", feedback: feedback)
            try sendRTCP(compound, track: index)
            stats.rtcpPacketsSent &+= 1
        }
    }

    private func sendRTCP(_ compound: [UInt8], track index: Int) throws(RTSPError) {
        switch transport {
        case .tcp:
            guard let socket, compound.count <= 65_535 else { return }
            var frame: [UInt8] = [UInt8(ascii: "$"), trackState[index].rtcpChannel, UInt8(compound.count >> 8), UInt8(truncatingIfNeeded: compound.count)]
            frame += compound
            try RTSPError.mapping { () throws(SocketError) in try socket.send(frame, deadline: .after(options.requestTimeout)) }
        case .udp:
            guard index < udp.count, let target = udpRTCPTargets[index], let from = udp[index].rtcp?.socket else { return }
            // A refused or full send of a report is not worth ending the stream for.
            _ = try? Self.send(compound, from: from, to: target)
        }
    }

    private static func send(_ datagram: [UInt8], from socket: DatagramSocket, to target: SocketAddress) throws(SocketError) {
        var failure: SocketError?
        datagram.withUnsafeBytes { raw in
            do throws(SocketError) { try socket.send(raw, to: target, deadline: .after(.milliseconds(100))) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// A datagram from any of `sockets` into `buffer`, or nil when none came by `deadline`.
    private static func receiveDatagram(from sockets: [DatagramSocket], preferred: Int, into buffer: inout [UInt8],
                                        deadline: Deadline) throws(SocketError) -> (count: Int, index: Int)? {
        var result: Result<(count: Int, index: Int), SocketError> = .failure(SocketError(.system, "not received"))
        buffer.withUnsafeMutableBytes { raw in
            do throws(SocketError) {
                result = .success(try DatagramSocket.receive(fromAny: sockets, preferred: preferred, into: raw, deadline: deadline))
            } catch {
                result = .failure(error)
            }
        }
        switch result {
        case .success(let r): return r
        case .failure(let e) where e.kind == .timedOut: return nil
        case .failure(let e): throw e
        }
    }

    /// An RTP port (even) and the RTCP port above it, both bound (RFC 3550 11).
    private static func bindPortPair(address: String) throws(RTSPError) -> UDPSocketPair {
        var lastError: RTPError?
        for _ in 0..<32 {
            do throws(RTPError) {
                let rtp = try UDPSocket(receivingOn: 0, address: address)
                guard rtp.localPort % 2 == 0, rtp.localPort < 65_535 else { continue }
                let rtcp = try UDPSocket(receivingOn: rtp.localPort + 1, address: address, receiveBufferSize: 1 << 20)
                return UDPSocketPair(rtp: rtp, rtcp: rtcp)
            } catch {
                lastError = error
            }
        }
        throw RTSPError(lastError ?? RTPError.invalid(.io, "no free even port pair"), "binding the UDP ports")
    }
}

/// A URI for an error's reason: never with user information (the client's own URIs have none;
/// this guards a server's).
private func URLText(_ uri: String) -> String {
    guard let url = try? RTSPURL(uri) else { return String(uri.prefix(200)) }
    return url.requestURI
}
