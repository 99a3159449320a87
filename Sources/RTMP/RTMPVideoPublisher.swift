#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import FLV
import H264
import MediaSupport

/// Publishes H.264 video to an RTMP server: access units or encoded frames in (any
/// `AccessUnitSample`), FLV video messages out, through an ``RTMPPublisher`` (its own queue,
/// bounded, with a drop-or-block policy). Parameter sets in band move to AVC sequence headers,
/// sent first whenever the ones a picture uses change (`FLVSampleBuilder`), and every time is
/// converted by the library: milliseconds, composition time, the shift of a negative first
/// DTS. The caller passes samples as the encoder or the parser gives them.
///
/// ```swift
/// let publisher = try RTMPVideoPublisher(url: "rtmp://127.0.0.1/live/test", metadata: metadata,
///                                        parameterSets: encoder.parameterSets)
/// for frame in try encoder.encode(picture) { try publisher.send(frame) }
/// try publisher.finish()
/// ```
///
/// This is the synchronous fast path: `send` queues and returns (it never waits on the
/// network), while the creation and ``finish(timeout:)`` wait for the server. From
/// Swift concurrency use ``AsyncRTMPPublisher``, built on this type, whose calls never block a
/// cooperative thread and which stops when its task is cancelled.
///
/// `Sendable`: `send` may be called from a capture thread while another thread finishes;
/// samples are taken in the order the calls reach it.
public final class RTMPVideoPublisher: Sendable {
    /// The connection the FLV messages go through.
    let connection: RTMPPublisher
    /// The sample builder, the last DTS sent, and how much the builder moved the times (set at
    /// the first sample: a negative first DTS moves every time later), which tags follow.
    private let state: ThreadLock<(builder: FLVSampleBuilder, lastDTS: Int64, shift: Int64?)>
    /// ``forward(_:)-(AccessUnitSample)`` has passed a random access point: it sends every sample from now on.
    private let forwarding = ThreadLock(false)

    /// Connects, publishes, and queues the metadata.
    /// - Parameters:
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - metadata: the `onMetaData` to send first.
    ///   - parameterSets: SPS and PPS known before the first frame (an encoder's), for streams
    ///     that do not carry them in band.
    ///   - options: publisher settings.
    /// - Throws: the errors of ``RTMPPublisher/init(url:options:)``.
    public convenience init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [],
                            options: RTMPPublisher.Options = .init()) throws(RTMPError) {
        try self.init(url: url, metadata: metadata, parameterSets: parameterSets, options: options,
                      events: nil, interrupt: Interrupt())
    }

    /// Connects, publishes, and queues the metadata, as
    /// ``init(url:metadata:parameterSets:options:)`` does; `events` is told each change of
    /// the connection when ``RTMPPublisher/Options/reconnection`` is set, on the publisher's
    /// sender thread (see ``RTMPPublisher/init(url:options:events:)``). On a new connection the
    /// metadata and the latest sequence header are sent again before the first keyframe.
    /// - Throws: the errors of ``RTMPPublisher/init(url:options:)``.
    public convenience init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [],
                            options: RTMPPublisher.Options = .init(),
                            events: (@Sendable (RTMPPublisher.ConnectionEvent) -> Void)?) throws(RTMPError) {
        try self.init(url: url, metadata: metadata, parameterSets: parameterSets, options: options,
                      events: events, interrupt: Interrupt())
    }

    /// Connects as the public initialiser does, every wait watching `interrupt`.
    init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit], options: RTMPPublisher.Options,
         events: (@Sendable (RTMPPublisher.ConnectionEvent) -> Void)?, interrupt: Interrupt) throws(RTMPError) {
        state = ThreadLock((FLVSampleBuilder(parameterSets: parameterSets), 0, nil))
        connection = try RTMPPublisher(url: url, options: options, events: events, interrupt: interrupt)
        connection.send(metadata: metadata)
    }

    /// Queues one access unit or encoded frame: its FLV sample (and first, when its parameter
    /// sets are new, an AVC sequence header), with the times `FLVSampleBuilder.sample(_:)`
    /// derives from the sample's own timestamps.
    /// - Returns: false when the overflow policy dropped the frame.
    /// - Throws: ``RTMPError/Code/invalidArgument`` (with the `FLVError`) for a sample that
    ///   cannot be framed (no timestamps, no parameter sets yet), and the publisher's errors.
    @discardableResult
    public func send(_ sample: some AccessUnitSample) throws(RTMPError) -> Bool {
        try state.withLock { (s) throws(RTMPError) -> Bool in
            let built: (avcC: [UInt8]?, sample: FLVVideoSample)
            do throws(FLVError) { built = try s.builder.sample(sample) } catch { throw RTMPError.wrapping(error, as: .invalidArgument) }
            if let avcC = built.avcC { try connection.send(decoderConfiguration: avcC, timestamp: built.sample.dts) }
            s.lastDTS = built.sample.dts
            if s.shift == nil, let dts = sample.timestamps(timescale: 1000)?.dts {
                s.shift = built.sample.dts &- dts  // two times of one sample: small
            }
            return try connection.send(built.sample)
        }
    }

    /// Queues one sample of a stream joined part-way (a restream, a relay that connected
    /// late): the samples before the first random access point are skipped (nothing could
    /// decode them), and from it on every sample is sent as ``send(_:)`` sends it.
    /// - Returns: false when the sample was skipped, or dropped by the overflow policy.
    /// - Throws: the errors of ``send(_:)``.
    @discardableResult
    public func forward(_ sample: some AccessUnitSample) throws(RTMPError) -> Bool {
        let started = forwarding.withLock { started in
            if !started && sample.isRandomAccessPoint { started = true }
            return started
        }
        guard started else { return false }
        return try send(sample)
    }

    /// Queues what one event of an ``RTMPIngestStream`` (a publish an ``RTMPServer`` took in)
    /// carries, so that the stream is published on as it came: the mapping
    /// ``AsyncRTMPPublisher/restream(_:finishTimeout:)`` uses for each event, for a consumer
    /// that reads the ingest itself (records it too) and hands each event on.
    ///
    /// - ``RTMPIngestStream/Event/metadata(_:)``: ``send(metadata:)``.
    /// - ``RTMPIngestStream/Event/video(_:)``: ``forward(_:)-(AccessUnitSample)``, from the first random access
    ///   point; the access units of keyframes carry the parameter sets of the sequence header in
    ///   force, from which the AVC sequence headers are made again (so
    ///   ``RTMPIngestStream/Event/decoderConfiguration(_:timestamp:)`` needs no forwarding).
    /// - ``RTMPIngestStream/Event/tag(_:time:)``: audio and data as they came, at their unrolled
    ///   time (``send(tag:time:)``), in step with the video; an AAC sequence header is never
    ///   dropped and is sent again after a reconnection.
    /// - ``RTMPIngestStream/Event/endOfSequence(timestamp:)``: nothing (``finish(timeout:)``
    ///   sends one).
    ///
    /// Never waits under ``RTMPPublisher/OverflowPolicy/dropUntilKeyframe`` (the default).
    /// - Returns: false when the event was skipped (a frame before the first random access
    ///   point, a decoder configuration, an end of sequence) or dropped by the overflow policy.
    /// - Throws: the errors of ``send(_:)`` and ``send(tag:time:)``.
    @discardableResult
    public func forward(_ event: RTMPIngestStream.Event) throws(RTMPError) -> Bool {
        switch event {
        case .metadata(let metadata):
            send(metadata: metadata)
            return true
        case .video(let accessUnit): return try forward(accessUnit)
        case .tag(let tag, let time): return try send(tag: tag, time: time)
        case .decoderConfiguration, .endOfSequence: return false
        }
    }

    /// Queues new `@setDataFrame onMetaData` (a restream's, when the publisher sends it again).
    public func send(metadata: FLVMetadata) {
        connection.send(metadata: metadata)
    }

    /// Queues an audio or data (script) tag, sent as it is, in order with the frames
    /// (``RTMPPublisher/send(tag:)``): a restream's `RTMPIngestStream.Event.tag`.
    /// - Parameters:
    ///   - tag: the tag; its body is sent unread, its `timestamp` is replaced by `time`'s.
    ///   - time: the tag's time in milliseconds, on the clock of the samples' timestamps (the
    ///     ingest event's 64-bit time), moved later as the samples' times are when the first
    ///     DTS is negative (see `FLVSampleBuilder`), so that audio stays in step with the video
    ///     (a tag before the first sample: a negative time is taken as 0, the first sample's
    ///     time after that move).
    /// - Returns: false when the overflow policy dropped the tag.
    /// - Throws: ``RTMPError/Code/invalidArgument`` for a video tag or a time outside the 32-bit
    ///   range, and the publisher's errors.
    @discardableResult
    public func send(tag: FLVTag, time: Int64) throws(RTMPError) -> Bool {
        try state.withLock { (s) throws(RTMPError) -> Bool in
            // Before the first sample fixes the shift, a negative time is taken as 0: where a
            // negative first DTS is moved to.
            let moved = s.shift.map { time &+ $0 } ?? max(time, 0)  // a 64-bit time and a small shift
            guard let timestamp = UInt32(exactly: moved) else {
                throw RTMPError.invalid(.invalidArgument, "tag time \(moved) ms is outside 0...\(UInt32.max)")
            }
            var tag = tag
            tag.timestamp = timestamp
            return try connection.send(tag: tag)
        }
    }

    /// Sends the end of sequence, unpublishes and closes; returns the counters.
    /// - Parameter timeout: the deadline for the queue to drain and the goodbye (10 s by
    ///   default).
    @discardableResult
    public func finish(timeout: Duration = .seconds(10)) throws(RTMPError) -> RTMPPublisher.Statistics {
        try connection.finish(endOfSequenceTimestamp: state.withLock { $0.lastDTS }, timeout: timeout)
        return connection.statistics
    }

    /// The counters so far (``RTMPPublisher/statistics``).
    public var statistics: RTMPPublisher.Statistics { connection.statistics }

    /// The error that stopped the publisher, if any (``RTMPPublisher/error``).
    public var error: RTMPError? { connection.error }

    /// Stops the publisher at once (``RTMPPublisher/cancel()``): from any thread, any number
    /// of times.
    public func cancel() { connection.cancel() }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { connection.isCancelled }

    /// The connection underneath; its statistics, error and cancellation are now the video
    /// publisher's own (``statistics``, ``error``, ``cancel()``, ``isCancelled``).
    @available(*, deprecated, message: "use the video publisher's own statistics, error, cancel() and isCancelled")
    public var publisher: RTMPPublisher { connection }

    /// Publishes a whole Annex-B stream: access units per 7.4.1.2.4 with their decode and
    /// presentation times.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    ///   - realTime: pace the frames by their DTS (otherwise as fast as the policy allows).
    ///   - options: publisher settings.
    /// - Throws: ``RTMPError/Code/h264`` (with the core's error) for a stream without access
    ///   units, and the publisher's errors.
    public static func publish(annexB: [UInt8], to url: String, timing: TimestampOptions = .init(),
                               realTime: Bool = true, options: RTMPPublisher.Options = .init()) throws(RTMPError) -> RTMPPublisher.Statistics {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], timing: timing, leadingData: .skip)
        if accessUnits.isEmpty, let first = errors.first {
            throw RTMPError.h264(first, "no access unit")
        }
        let session = try RTMPVideoPublisher(url: url, metadata: FLVMetadataCollector.metadata(for: accessUnits), options: options)
        let clock = ContinuousClock()
        let start = clock.now
        for au in accessUnits where !au.flags.hasNoPicture {
            if realTime, let dts = au.timestamps(timescale: 1000)?.dts {
                let wait = Duration.milliseconds(dts) - start.duration(to: clock.now)
                if wait > .zero {
                    let (seconds, attoseconds) = wait.components
                    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                    _ = nanosleep(&request, nil)
                }
            }
            try session.send(au)
        }
        return try session.finish()
    }
}
