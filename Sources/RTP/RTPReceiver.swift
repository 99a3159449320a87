import H264

/// Receives one H.264 RTP stream: datagrams in, access units out, a loss and reorder report at
/// the end. The receive loop of `h264 rtp-receive`, without the socket.
///
/// It wraps an ``RTPDepacketizer`` (lenient by default: a receiver meets the senders it
/// meets) and puts the parameter sets of the SDP's `sprop-parameter-sets`, and the latest ones
/// seen in the stream, in front of each IDR access unit that lacks them, so that the output
/// decodes from its first IDR picture even when the sender sends them only out of band.
/// Malformed packets are counted (``RTPLossReport/packetsRejected``) and kept in ``errors``,
/// never thrown: one bad datagram does not end a reception.
///
/// ```swift
/// let sdp = try RTPSessionDescription(parsing: text)
/// var socket = try UDPSocket(receivingOn: sdp.port)
/// var receiver = try RTPReceiver(.init(session: sdp, idleTimeout: .seconds(5)))
/// let stop = try receiver.run(from: &socket) { accessUnit in write(accessUnit.nalUnits) }
/// print(stop, receiver.report)
/// ```
///
/// Memory: the depacketiser's bound (see ``RTPDepacketizer``), the parameter sets known (at
/// most one per id, see `ParameterSetInserter`), one 64 KiB datagram buffer and at most
/// ``maximumKeptErrors`` errors.
public struct RTPReceiver: Sendable {
    /// Receiver settings.
    public struct Configuration: Sendable {
        /// The depacketiser's settings (payload type, packetization-mode, leniency, reorder
        /// window, access unit limit).
        public var depacketizer: RTPDepacketizer.Configuration
        /// Parameter sets known before the stream (the SDP's `sprop-parameter-sets`).
        public var parameterSets: [NALUnit]
        /// When set, ``run(from:until:events:deliver:)`` stops this long after it began.
        public var duration: Duration?
        /// ``run(from:until:events:deliver:)`` stops when no datagram arrived for this long.
        public var idleTimeout: Duration
        /// How long ``run(from:until:events:deliver:)`` waits for the first datagram (nil: the
        /// ``idleTimeout``).
        public var firstPacketTimeout: Duration?

        /// Creates a configuration.
        public init(depacketizer: RTPDepacketizer.Configuration = .init(lenient: true), parameterSets: [NALUnit] = [],
                    duration: Duration? = nil, idleTimeout: Duration = .seconds(5), firstPacketTimeout: Duration? = nil) {
            self.depacketizer = depacketizer
            self.parameterSets = parameterSets
            self.duration = duration
            self.idleTimeout = idleTimeout
            self.firstPacketTimeout = firstPacketTimeout
        }

        /// A configuration for the stream an SDP describes: its payload type, its
        /// `packetization-mode` and its `sprop-parameter-sets` (any number of them).
        /// - Parameters:
        ///   - session: the SDP.
        ///   - lenient: tolerate the RFC 6184 violations of ``RTPTolerance`` (default true).
        ///   - duration: see ``duration``.
        ///   - idleTimeout: see ``idleTimeout``.
        ///   - firstPacketTimeout: see ``firstPacketTimeout``.
        /// - Throws: `H264Error` of a parameter set whose NAL unit header is invalid.
        public init(session: RTPSessionDescription, lenient: Bool = true, duration: Duration? = nil,
                    idleTimeout: Duration = .seconds(5), firstPacketTimeout: Duration? = nil) throws(H264Error) {
            let mode = session.format.packetizationMode == 0 ? 0 : 1
            self.init(depacketizer: .init(payloadType: session.payloadType, packetizationMode: mode, lenient: lenient),
                      parameterSets: try session.format.parameterSetNALUnits(), duration: duration, idleTimeout: idleTimeout,
                      firstPacketTimeout: firstPacketTimeout)
        }
    }

    /// Why ``run(from:until:events:deliver:)`` returned.
    public enum Stop: Hashable, Sendable {
        /// ``Configuration/duration`` passed.
        case duration
        /// No datagram for ``Configuration/idleTimeout``.
        case idle
        /// The caller's `until` closure said stop.
        case requested
    }

    /// Errors kept in ``errors``; later ones are only counted in ``errorCount``.
    public static let maximumKeptErrors = 16

    /// The settings.
    public let configuration: Configuration
    /// The depacketiser (its ``RTPDepacketizer/report`` is ``report``).
    public private(set) var depacketizer: RTPDepacketizer
    /// The first errors met: rejected packets and RFC 6184 violations (the NAL units they hit
    /// were dropped and are also in the events).
    public private(set) var errors: [H264Error] = []
    /// Errors in all.
    public private(set) var errorCount = 0
    private var inserter: ParameterSetInserter

    /// Creates a receiver.
    /// - Throws: errors of ``RTPDepacketizer/init(_:)``.
    public init(_ configuration: Configuration) throws(H264Error) {
        self.configuration = configuration
        depacketizer = try RTPDepacketizer(configuration.depacketizer)
        inserter = ParameterSetInserter(parameterSets: configuration.parameterSets)
    }

    /// What was received, lost, reordered and dropped so far.
    public var report: RTPLossReport { depacketizer.report }

    /// The depacketiser's events since the last call (see ``RTPDepacketizer/takeEvents()``).
    public mutating func takeEvents() -> [RTPDepacketizerEvent] { depacketizer.takeEvents() }

    /// Takes one datagram; passes the access units it completes to `deliver`.
    /// - Complexity: as ``RTPDepacketizer/push(_:_:)``, plus reading the slice headers of an
    ///   IDR access unit.
    public mutating func receive(_ datagram: ArraySlice<UInt8>, _ deliver: (RTPReceivedAccessUnit) -> Void) {
        var inserter = self.inserter
        do {
            try depacketizer.push(datagram) { deliver(Self.withParameterSets($0, &inserter)) }
        } catch {
            note(error)
        }
        self.inserter = inserter
    }

    /// Ends the stream: delivers what the reorder window holds and the access unit in progress.
    public mutating func finish(_ deliver: (RTPReceivedAccessUnit) -> Void) {
        var inserter = self.inserter
        depacketizer.flush { deliver(Self.withParameterSets($0, &inserter)) }
        self.inserter = inserter
    }

    /// Receives from `source` until ``Configuration/duration`` passes, no datagram arrives for
    /// ``Configuration/idleTimeout`` (``Configuration/firstPacketTimeout`` before the first),
    /// or `until` returns true (asked at least every 250 ms), then calls ``finish(_:)``. Each
    /// wait on the source is bounded, so the loop ends on time whatever the network does.
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
    /// - Throws: errors of the source (`H264Error.Code.io`) and of `deliver`.
    public mutating func run<Source: RTPDatagramSource>(from source: inout Source, until: () -> Bool = { false },
                                                        events: (RTPDepacketizerEvent) -> Void = { _ in },
                                                        deliver: (RTPReceivedAccessUnit) throws -> Void) throws -> Stop {
        let clock = ContinuousClock()
        let start = clock.now
        var lastArrival = start
        var idle = configuration.firstPacketTimeout ?? configuration.idleTimeout
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
            if let duration = configuration.duration, start.advanced(by: duration) - now < wait {
                wait = start.advanced(by: duration) - now
                stop = .duration
            }
            guard wait > .zero else { break }
            guard let n = try source.receive(into: &buffer, timeout: min(wait, .milliseconds(250))) else { continue }
            lastArrival = clock.now
            idle = configuration.idleTimeout
            receive(buffer[..<min(n, buffer.count)], sink)
            for e in takeEvents() { events(e) }
            if let failure { throw failure }
        }
        finish(sink)
        for e in takeEvents() { events(e) }
        if let failure { throw failure }
        return stop
    }

    private mutating func note(_ error: H264Error) {
        errorCount += 1
        if errors.count < Self.maximumKeptErrors { errors.append(error) }
    }

    private static func withParameterSets(_ au: RTPReceivedAccessUnit, _ inserter: inout ParameterSetInserter) -> RTPReceivedAccessUnit {
        let idr = au.nalUnits.contains { $0.type == .idrSlice }
        var out = au
        out.nalUnits = inserter.inserting(into: au.nalUnits, isRandomAccess: idr)
        return out
    }
}
