import H264

/// Receives one H.264 RTP stream: datagrams in, access units out, a loss and reorder report at
/// the end. The receive loop of `h264 rtp-receive`, without the socket.
///
/// It wraps an ``RTPDepacketizer`` (lenient by default: a receiver meets the senders it
/// meets) and puts the parameter sets of the SDP's `sprop-parameter-sets`, and the latest ones
/// seen in the stream, in front of each IDR access unit that lacks them, so that the output
/// decodes from its first IDR picture even when the sender sends them only out of band.
/// With ``Options/skipsUntilDecodable`` it delivers nothing before the first access unit
/// a decoder can start at (counted in ``RTPLossReport/accessUnitsSkipped``): what a recording
/// needs when a stray packet or a late join comes first.
/// Malformed packets are counted (``RTPLossReport/packetsRejected``) and kept in ``errors``,
/// never thrown: one bad datagram does not end a reception.
///
/// It reads RTCP (RFC 3550 6) from the RTCP port (a source such as ``UDPSocketPair`` tells it
/// which datagrams came from there) and on the RTP port when multiplexed (RFC 5761,
/// ``RTCP/isMultiplexedRTCP(_:)``): a BYE from the stream's SSRC ends ``run(from:until:events:deliver:)``
/// (``Stop/bye``, after ``Options/byeGracePeriod`` for packets still on the way; BYEs of
/// other SSRCs are counted and ignored), and the latest sender report of the stream's SSRC
/// (``senderReport``) gives each access unit its sender's wall-clock time
/// (``RTPReceivedAccessUnit/ntpTimestamp``). Malformed RTCP is counted
/// (``RTPLossReport/rtcpDatagramsRejected``) and kept in ``errors``.
///
/// Each access unit delivered carries its times on the 90 kHz clock
/// (``RTPReceivedAccessUnit/timestamps``, from ``RTPSampleTiming``: the RTP timestamps
/// unwrapped, decoding times from the reorder depth of the first SPS, carried on across a change
/// of SSRC), so it can go to a muxer as it is: `MP4Recorder.write(_:)` records the sender's
/// timing.
///
/// ```swift
/// let sdp = try RTPSessionDescription(parsing: text)
/// var sockets = try UDPSocketPair(receivingOn: sdp.port, rtcpPort: sdp.rtcpPort)
/// var receiver = try RTPReceiver(.init(session: sdp, idleTimeout: .seconds(5)))
/// let stop = try receiver.run(from: &sockets) { accessUnit in write(accessUnit.nalUnits) }
/// print(stop, receiver.report)
/// ```
///
/// Memory: the depacketiser's bound (``RTPDepacketizer/Options/maximumRetainedByteCount``),
/// while an IDR access unit gets parameter sets a second list of its NAL unit views (32 bytes
/// per NAL unit, within the depacketiser's NAL unit limit), the parameter sets known (at most
/// one per id, see `ParameterSetInserter`), one 64 KiB datagram buffer, two sender reports, the
/// RTCP packets of one datagram (``RTCP/maximumPacketsPerCompound``), at most
/// ``maximumKeptErrors`` errors, and the 17 times of ``RTPSampleTiming``.
public struct RTPReceiver: Sendable {
    /// Receiver settings.
    public struct Options: Sendable {
        /// The depacketiser's settings (payload type, packetization-mode, leniency, reorder
        /// window, access unit limit).
        public var depacketizer: RTPDepacketizer.Options
        /// Parameter sets known before the stream (the SDP's `sprop-parameter-sets`).
        public var parameterSets: [NALUnit]
        /// When set, ``run(from:until:events:deliver:)`` stops this long after it began.
        public var duration: Duration?
        /// ``run(from:until:events:deliver:)`` stops when no datagram arrived for this long.
        public var idleTimeout: Duration
        /// How long ``run(from:until:events:deliver:)`` waits for the first datagram (nil: the
        /// ``idleTimeout``).
        public var firstPacketTimeout: Duration?
        /// How long ``run(from:until:events:deliver:)`` goes on receiving after an RTCP BYE from
        /// the stream's SSRC, for RTP packets the network delivers after it (the BYE travels
        /// on another port), before it stops with ``Stop/bye`` (default 200 ms).
        public var byeGracePeriod: Duration
        /// Deliver nothing before the first access unit a decoder can start at: an IDR picture
        /// whose slices' PPS and SPS are in the access unit or known (in band before it, or from
        /// the SDP's `sprop-parameter-sets`, inserted in front of it). What comes before (a
        /// stray packet, a join in the middle of a GOP) is counted in
        /// ``RTPLossReport/accessUnitsSkipped``. Set again when the SSRC changes. A stream
        /// without IDR pictures (intra refresh only) is skipped whole. Default false: every
        /// access unit is delivered.
        public var skipsUntilDecodable: Bool

        /// Creates options.
        public init(depacketizer: RTPDepacketizer.Options = .init(lenient: true), parameterSets: [NALUnit] = [],
                    duration: Duration? = nil, idleTimeout: Duration = .seconds(5), firstPacketTimeout: Duration? = nil,
                    byeGracePeriod: Duration = .milliseconds(200), skipsUntilDecodable: Bool = false) {
            self.depacketizer = depacketizer
            self.parameterSets = parameterSets
            self.duration = duration
            self.idleTimeout = idleTimeout
            self.firstPacketTimeout = firstPacketTimeout
            self.byeGracePeriod = byeGracePeriod
            self.skipsUntilDecodable = skipsUntilDecodable
        }

        /// Options for the stream an SDP describes: its payload type, its
        /// `packetization-mode` and its `sprop-parameter-sets` (any number of them).
        /// - Parameters:
        ///   - session: the SDP.
        ///   - lenient: tolerate the RFC 6184 violations of ``RTPTolerance`` (default true).
        ///   - duration: see ``duration``.
        ///   - idleTimeout: see ``idleTimeout``.
        ///   - firstPacketTimeout: see ``firstPacketTimeout``.
        ///   - skipsUntilDecodable: see ``skipsUntilDecodable``.
        /// - Throws: ``RTPError/Code/h264`` for a parameter set whose NAL unit header is invalid.
        public init(session: RTPSessionDescription, lenient: Bool = true, duration: Duration? = nil,
                    idleTimeout: Duration = .seconds(5), firstPacketTimeout: Duration? = nil,
                    skipsUntilDecodable: Bool = false) throws(RTPError) {
            let mode = session.format.packetizationMode == 0 ? 0 : 1
            self.init(depacketizer: .init(payloadType: session.payloadType, packetizationMode: mode, lenient: lenient),
                      parameterSets: try session.format.parameterSetNALUnits(), duration: duration, idleTimeout: idleTimeout,
                      firstPacketTimeout: firstPacketTimeout, skipsUntilDecodable: skipsUntilDecodable)
        }
    }

    /// Why ``run(from:until:events:deliver:)`` returned.
    public enum Stop: Hashable, Sendable {
        /// ``Options/duration`` passed.
        case duration
        /// No datagram for ``Options/idleTimeout``.
        case idle
        /// The caller's `until` closure said stop.
        case requested
        /// The sender left: an RTCP BYE from the stream's SSRC (then
        /// ``Options/byeGracePeriod``).
        case bye
    }

    /// Errors kept in ``errors``; later ones are only counted in ``errorCount``.
    public static let maximumKeptErrors = 16

    /// The settings.
    public let options: Options
    /// The former name of ``options``.
    @available(*, deprecated, renamed: "options")
    public var configuration: Options { options }
    /// The former name of ``Options``.
    @available(*, deprecated, renamed: "Options")
    public typealias Configuration = Options
    /// The depacketiser (its ``RTPDepacketizer/report`` is ``report``).
    public private(set) var depacketizer: RTPDepacketizer
    /// The first errors met: rejected packets and RFC 6184 violations (the NAL units they hit
    /// were dropped and are also in the events).
    public private(set) var errors: [RTPError] = []
    /// Errors in all.
    public private(set) var errorCount = 0
    /// True once an RTCP BYE from the stream's SSRC arrived.
    public private(set) var byeReceived = false
    /// The latest RTCP sender report of the stream's SSRC (nil before one arrived): the mapping
    /// from its RTP timestamps to wall-clock time.
    public var senderReport: RTCPSenderReport? {
        guard let ssrc = depacketizer.ssrc else { return nil }
        return delivery.report(for: ssrc)
    }
    private var delivery: Delivery
    private var rtcpCounts = RTPLossReport()

    /// What the delivery path keeps: it is copied out of `self` while the depacketiser calls
    /// back, then stored again.
    private struct Delivery {
        var inserter: ParameterSetInserter
        /// The latest sender report of the SSRC delivered last, and the latest of any other SSRC
        /// (one that arrived before its stream's first packet, or before a source change).
        var streamReport: RTCPSenderReport?
        var otherReport: RTCPSenderReport?
        let skipsUntilDecodable: Bool
        var waiting: Bool
        var lastSSRC: UInt32?
        var skipped = 0
        /// The access units' times: made at the first access unit delivered, from the SPS it
        /// carries or the options' (else for a stream without reordering).
        var timing: RTPSampleTiming?
        /// Where the times start (``RTPReceiver/align(sequenceNumber:rtpTimestamp:presentationTime:)``).
        var origin: (rtpTimestamp: UInt32?, time: Int64)?
        let parameterSets: [NALUnit]

        func report(for ssrc: UInt32) -> RTCPSenderReport? {
            if let r = streamReport, r.ssrc == ssrc { return r }
            if let r = otherReport, r.ssrc == ssrc { return r }
            return nil
        }

        mutating func note(_ report: RTCPSenderReport, stream: UInt32?) {
            if report.ssrc == stream ?? lastSSRC { streamReport = report } else { otherReport = report }
        }
    }

    /// Creates a receiver.
    /// - Throws: errors of ``RTPDepacketizer/init(_:)``.
    public init(_ options: Options) throws(RTPError) {
        self.options = options
        depacketizer = try RTPDepacketizer(options.depacketizer)
        delivery = Delivery(inserter: ParameterSetInserter(parameterSets: options.parameterSets),
                            skipsUntilDecodable: options.skipsUntilDecodable, waiting: options.skipsUntilDecodable,
                            parameterSets: options.parameterSets)
    }

    /// What was received, lost, reordered and dropped so far, with the receiver's own counts
    /// (skipped access units, RTCP).
    public var report: RTPLossReport {
        var r = depacketizer.report
        r.accessUnitsSkipped = delivery.skipped
        r.accessUnitsDelivered -= delivery.skipped
        r.rtcpPacketsReceived = rtcpCounts.rtcpPacketsReceived
        r.rtcpDatagramsRejected = rtcpCounts.rtcpDatagramsRejected
        r.senderReports = rtcpCounts.senderReports
        r.byesIgnored = rtcpCounts.byesIgnored
        return r
    }

    /// True from a loss that may have taken a reference picture until a random access point
    /// arrives whole: ask the sender for a keyframe (see ``RTPDepacketizer/needsKeyframe``).
    public var needsKeyframe: Bool { depacketizer.needsKeyframe }

    /// The depacketiser's events since the last call (see ``RTPDepacketizer/takeEvents()``).
    public mutating func takeEvents() -> [RTPDepacketizerEvent] { depacketizer.takeEvents() }

    /// Aligns the stream with an RTSP `PLAY` reply (RFC 2326 12.33 `RTP-Info`, 12.29 `Range`),
    /// before its first packet: packets before `sequenceNumber` are ignored
    /// (``RTPDepacketizer/expectFirst(sequenceNumber:)``), and the RTP timestamp
    /// `rtpTimestamp` is the presentation time `presentationTime` (90 kHz ticks: the start of
    /// the range played), so the access units' ``RTPReceivedAccessUnit/timestamps`` count from
    /// the range's start. Either may be nil (cameras omit `RTP-Info` or some of its fields):
    /// without `rtpTimestamp` the first access unit delivered is at `presentationTime`.
    /// Without a call, the first presentation time is the first RTP timestamp.
    public mutating func align(sequenceNumber: UInt16?, rtpTimestamp: UInt32?, presentationTime: Int64) {
        if let sequenceNumber { depacketizer.expectFirst(sequenceNumber: sequenceNumber) }
        if delivery.timing == nil { delivery.origin = (rtpTimestamp, presentationTime) }
    }

    /// Takes one datagram without its arrival time (the reorder window is then bounded in
    /// packets only for it); as ``receive(_:channel:arrival:_:)``.
    public mutating func receive(_ datagram: ArraySlice<UInt8>, channel: RTPChannel = .rtp, _ deliver: (RTPReceivedAccessUnit) -> Void) {
        receive(datagram, channel: channel, arrival: nil, deliver)
    }

    /// Takes one datagram; passes the access units it completes to `deliver`.
    /// - Parameters:
    ///   - datagram: one UDP datagram.
    ///   - channel: the port it arrived on; on the RTP port, a datagram that
    ///     ``RTCP/isMultiplexedRTCP(_:)`` recognises is RTCP too.
    ///   - arrival: when it arrived, for the reorder window's time bound
    ///     (``RTPDepacketizer/Options/maximumReorderDelay``); nil: none for this packet.
    ///   - deliver: called with each access unit completed.
    /// - Complexity: as ``RTPDepacketizer/push(_:arrival:_:)``, plus reading the slice headers of an
    ///   IDR access unit; O(n) in the bytes of an RTCP datagram.
    public mutating func receive(_ datagram: ArraySlice<UInt8>, channel: RTPChannel = .rtp, arrival: ContinuousClock.Instant?,
                                 _ deliver: (RTPReceivedAccessUnit) -> Void) {
        if channel == .rtcp || RTCP.isMultiplexedRTCP(datagram) {
            receiveRTCP(datagram)
            if let arrival { releaseExpired(at: arrival, deliver) }
            return
        }
        var delivery = Self.idleDelivery
        swap(&delivery, &self.delivery)  // the only owner of its buffers while it is changed: no copy
        do {
            try depacketizer.push(datagram, arrival: arrival) { Self.deliver($0, &delivery, deliver) }
        } catch {
            note(error)
        }
        self.delivery = delivery
    }

    /// When a packet held for reordering will have waited its longest
    /// (``RTPDepacketizer/releaseDeadline``): call ``releaseExpired(at:_:)`` then.
    public var releaseDeadline: ContinuousClock.Instant? { depacketizer.releaseDeadline }

    /// Releases the packets held for reordering longer than
    /// ``RTPDepacketizer/Options/maximumReorderDelay`` (``RTPDepacketizer/releaseExpired(at:_:)``),
    /// passing the access units they complete to `deliver`.
    public mutating func releaseExpired(at now: ContinuousClock.Instant, _ deliver: (RTPReceivedAccessUnit) -> Void) {
        guard let due = depacketizer.releaseDeadline, now >= due else { return }
        var delivery = Self.idleDelivery
        swap(&delivery, &self.delivery)
        depacketizer.releaseExpired(at: now) { Self.deliver($0, &delivery, deliver) }
        self.delivery = delivery
    }

    /// Ends the stream: delivers what the reorder window holds and the access unit in progress.
    public mutating func finish(_ deliver: (RTPReceivedAccessUnit) -> Void) {
        var delivery = Self.idleDelivery
        swap(&delivery, &self.delivery)
        depacketizer.flush { Self.deliver($0, &delivery, deliver) }
        self.delivery = delivery
    }

    /// What ``delivery`` holds while the delivery path has it.
    private static let idleDelivery = Delivery(inserter: ParameterSetInserter(), skipsUntilDecodable: false, waiting: false,
                                               parameterSets: [])

    /// One RTCP datagram: sender reports are kept, a BYE of the stream's SSRC noted.
    private mutating func receiveRTCP(_ datagram: ArraySlice<UInt8>) {
        let packets: [RTCPPacket]
        do {
            packets = try RTCP.packets(in: datagram)
        } catch {
            rtcpCounts.rtcpDatagramsRejected += 1
            note(error)
            return
        }
        let stream = depacketizer.ssrc
        for packet in packets {
            rtcpCounts.rtcpPacketsReceived += 1
            switch packet {
            case .senderReport(let report):
                rtcpCounts.senderReports += 1
                delivery.note(report, stream: stream)
            case .bye(let ssrcs):
                if let stream, ssrcs.contains(stream) { byeReceived = true } else { rtcpCounts.byesIgnored += 1 }
            case .receiverReport, .other:
                break
            }
        }
    }

    /// Receives from `source` until ``Options/duration`` passes, no datagram arrives for
    /// ``Options/idleTimeout`` (``Options/firstPacketTimeout`` before the first),
    /// ``Options/byeGracePeriod`` has passed since an RTCP BYE from the stream's SSRC, or
    /// `until` returns true (asked at least every 250 ms), then calls ``finish(_:)``. Each
    /// datagram is taken with its arrival time, and the loop wakes when a packet held for
    /// reordering is due (``releaseDeadline``): the reorder window is bounded in time
    /// (``RTPDepacketizer/Options/maximumReorderDelay``) as well as in packets. Each wait
    /// on the source is bounded, so the loop ends on time whatever the network does (a flood
    /// included: the deadlines are checked after every datagram).
    ///
    /// The waits block the calling thread (a ``UDPSocket`` polls): in a process that runs Swift
    /// concurrency, call it from a thread of its own rather than from a task on the shared pool.
    ///
    /// - Parameters:
    ///   - source: the datagrams (a ``UDPSocket``).
    ///   - until: asked between datagrams whether to stop (an interrupt flag).
    ///   - events: called with the depacketiser's events (``takeEvents()``) after each datagram.
    ///   - deliver: called with each access unit in order; an error it throws ends the loop
    ///     without ``finish(_:)`` and is rethrown.
    /// - Returns: why the loop stopped.
    /// - Throws: errors of the source (``RTPError/Code/io``) and of `deliver`.
    public mutating func run<Source: RTPDatagramSource>(from source: inout Source, until: () -> Bool = { false },
                                                        events: (RTPDepacketizerEvent) -> Void = { _ in },
                                                        deliver: (RTPReceivedAccessUnit) throws -> Void) throws -> Stop {
        let clock = ContinuousClock()
        let start = clock.now
        var byeDeadline = byeReceived ? start : nil
        var lastArrival = start
        var idle = options.firstPacketTimeout ?? options.idleTimeout
        var buffer: [UInt8] = []
        var failure: (any Error)?
        let sink = { (au: RTPReceivedAccessUnit) in
            guard failure == nil else { return }
            do { try deliver(au) } catch { failure = error }
        }
        var stop: Stop
        while true {
            if until() {
                stop = .requested
                break
            }
            let now = clock.now
            var wait = lastArrival.advanced(by: idle) - now
            stop = .idle
            if let duration = options.duration, start.advanced(by: duration) - now < wait {
                wait = start.advanced(by: duration) - now
                stop = .duration
            }
            if let byeDeadline, byeDeadline - now < wait {
                wait = byeDeadline - now
                stop = .bye
            }
            guard wait > .zero else { break }
            var timeout = min(wait, .milliseconds(250))
            if let due = releaseDeadline { timeout = max(.zero, min(timeout, due - now)) }
            guard let (n, channel) = try source.receiveDatagram(into: &buffer, timeout: timeout) else {
                releaseExpired(at: clock.now, sink)
                for e in takeEvents() { events(e) }
                if let failure { throw failure }
                continue
            }
            lastArrival = clock.now
            idle = options.idleTimeout
            receive(buffer[..<min(n, buffer.count)], channel: channel, arrival: lastArrival, sink)
            if byeReceived && byeDeadline == nil { byeDeadline = clock.now.advanced(by: max(options.byeGracePeriod, .zero)) }
            for e in takeEvents() { events(e) }
            if let failure { throw failure }
        }
        finish(sink)
        for e in takeEvents() { events(e) }
        if let failure { throw failure }
        return stop
    }

    private mutating func note(_ error: RTPError) {
        errorCount += 1
        if errors.count < Self.maximumKeptErrors { errors.append(error) }
    }

    /// Puts parameter sets in front of an IDR access unit that lacks them, the times and the
    /// wall-clock time on it, and passes it on unless it is skipped.
    private static func deliver(_ au: RTPReceivedAccessUnit, _ delivery: inout Delivery, _ deliver: (RTPReceivedAccessUnit) -> Void) {
        if au.ssrc != delivery.lastSSRC {
            if delivery.lastSSRC != nil && delivery.skipsUntilDecodable { delivery.waiting = true }
            if delivery.lastSSRC != nil { delivery.timing?.restart() }
            delivery.lastSSRC = au.ssrc
            if let r = delivery.otherReport, r.ssrc == au.ssrc { delivery.streamReport = r }
        }
        let idr = au.nalUnits.contains { $0.type == .idrSlice }
        var out = au
        out.nalUnits = delivery.inserter.inserting(into: au.nalUnits, isRandomAccess: idr)
        if delivery.waiting {
            guard idr, startsDecoding(out.nalUnits) else {
                delivery.skipped += 1
                return
            }
            delivery.waiting = false
        }
        out.ntpTimestamp = delivery.report(for: au.ssrc)?.ntpTimestamp(at: au.timestamp)
        if delivery.timing == nil {
            let sps = (out.nalUnits + delivery.parameterSets).lazy.filter { $0.type == .sps }
                .compactMap { try? SequenceParameterSet(rbsp: $0.rbsp) }.first
            delivery.timing = sps.map(RTPSampleTiming.init(sps:)) ?? RTPSampleTiming()
            if let origin = delivery.origin { delivery.timing?.anchor(rtpTimestamp: origin.rtpTimestamp, presentationTime: origin.time) }
        }
        out.timestamps = delivery.timing?.timestamps(forRTPTimestamp: au.timestamp)
        deliver(out)
    }

    /// True when a decoder can start at `units` (an access unit with its parameter sets
    /// inserted): an IDR picture, and each slice's PPS, and that PPS's SPS, in the access unit.
    /// - Complexity: O(n) in the NAL units, reading the first bytes of each slice and set.
    static func startsDecoding(_ units: [NALUnit]) -> Bool {
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 256) { spsOfPPS in
            spsOfPPS.initialize(repeating: -1)
            var spsIDs: UInt32 = 0  // a bit per seq_parameter_set_id (0...31)
            var idr = false
            for unit in units {
                switch unit.type {
                case .sps:
                    if let id = unit.parameterSetID, id < 32 { spsIDs |= 1 << UInt32(id) }
                case .pps:
                    if let id = unit.parameterSetID, id < 256, let sps = unit.referencedParameterSetID, sps < 32 {
                        spsOfPPS[id] = Int8(sps)
                    }
                case .idrSlice:
                    idr = true
                default:
                    break
                }
            }
            guard idr else { return false }
            for unit in units where unit.type == .slice || unit.type == .idrSlice {
                guard let pps = unit.referencedParameterSetID, pps < 256, spsOfPPS[pps] >= 0,
                      spsIDs & 1 << UInt32(spsOfPPS[pps]) != 0 else { return false }
            }
            return true
        }
    }
}
