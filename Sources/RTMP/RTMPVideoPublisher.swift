#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FLV
import H264

/// Publishes H.264 video to an RTMP server: access units or encoded frames in, FLV video
/// messages out, through an ``RTMPPublisher`` (its own queue, bounded, with a drop-or-block
/// policy). Parameter sets in band move to AVC sequence headers, sent first whenever the ones a
/// picture uses change (`FLVSampleBuilder`).
///
/// ```swift
/// let publisher = try RTMPVideoPublisher(url: "rtmp://127.0.0.1/live/test", metadata: metadata)
/// for au in accessUnits { try publisher.send(au) }
/// try publisher.finish()
/// ```
public final class RTMPVideoPublisher {
    /// The publisher (statistics, error).
    public let publisher: RTMPPublisher
    private var builder: FLVSampleBuilder
    private var lastDTS: Int64 = 0

    /// Connects, publishes, and queues the metadata.
    /// - Parameters:
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - metadata: the `onMetaData` to send first.
    ///   - parameterSets: SPS and PPS known before the first frame (an encoder's), for streams
    ///     that do not carry them in band.
    ///   - options: publisher settings.
    /// - Throws: the errors of ``RTMPPublisher/init(url:options:)``.
    public init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [],
                options: RTMPPublisher.Options = .init()) throws(RTMPError) {
        builder = FLVSampleBuilder(parameterSets: parameterSets)
        publisher = try RTMPPublisher(url: url, options: options)
        publisher.send(metadata: metadata)
    }

    /// Queues one timed access unit.
    /// - Returns: false when the overflow policy dropped the frame.
    /// - Throws: ``RTMPError/Code/invalidArgument`` (with the `FLVError`) for an access unit
    ///   that cannot be framed, and the publisher's errors.
    @discardableResult
    public func send(_ accessUnit: AccessUnit) throws(RTMPError) -> Bool {
        let built: (avcC: [UInt8]?, sample: FLVVideoSample)
        do throws(FLVError) { built = try builder.sample(accessUnit) } catch { throw RTMPError.argument(error) }
        return try send(built)
    }

    /// Queues one encoded frame (times as `FLVSampleBuilder.sample(_:)` makes
    /// them).
    /// - Returns: false when the overflow policy dropped the frame.
    @discardableResult
    public func send(_ frame: EncodedFrame) throws(RTMPError) -> Bool {
        let built: (avcC: [UInt8]?, sample: FLVVideoSample)
        do throws(FLVError) { built = try builder.sample(frame) } catch { throw RTMPError.argument(error) }
        return try send(built)
    }

    private func send(_ built: (avcC: [UInt8]?, sample: FLVVideoSample)) throws(RTMPError) -> Bool {
        if let avcC = built.avcC { try publisher.send(decoderConfiguration: avcC, timestamp: built.sample.dts) }
        lastDTS = built.sample.dts
        return try publisher.send(built.sample)
    }

    /// Sends the end of sequence, unpublishes and closes; returns the counters.
    /// - Parameter timeoutMilliseconds: the deadline for the queue to drain and the goodbye.
    @discardableResult
    public func finish(timeoutMilliseconds: Int = 10_000) throws(RTMPError) -> RTMPPublisher.Statistics {
        try publisher.finish(endOfSequenceTimestamp: lastDTS, timeoutMilliseconds: timeoutMilliseconds)
        return publisher.statistics
    }

    /// Publishes a whole Annex-B stream: access units per 7.4.1.2.4 with their decode and
    /// presentation times.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    ///   - realTime: pace the frames by their DTS (otherwise as fast as the policy allows).
    ///   - options: publisher settings.
    /// - Throws: ``RTMPError/Code/invalidArgument`` (with the core's error) for a stream without
    ///   access units, and the publisher's errors.
    public static func publish(annexB: [UInt8], to url: String, timing: TimestampAssigner.Configuration = .init(),
                               realTime: Bool = true, options: RTMPPublisher.Options = .init()) throws(RTMPError) -> RTMPPublisher.Statistics {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], timing: timing, leadingData: .skip)
        if accessUnits.isEmpty, let first = errors.first {
            throw RTMPError(.invalidArgument, "no access unit: \(first.code): \(first.reason)", underlying: first)
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
