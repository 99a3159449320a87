import FLV
import Foundation
import H264
import RTMP

/// RTMP publishing for `h264 encode --rtmp URL`: access units in, FLV video messages out,
/// through an ``RTMPPublisher`` (its own queue, bounded, with a drop-or-block policy).
final class RTMPPublishing {
    /// The publisher (statistics, error).
    let publisher: RTMPPublisher
    private var builder = FLVSampleBuilder()
    private var lastDTS: Int64 = 0

    /// Connects, publishes, and queues the metadata.
    /// - Throws: the typed errors of ``RTMPPublisher/init(url:options:)``.
    /// - Parameter parameterSets: SPS and PPS known before the first frame (an encoder's), for
    ///   streams that do not carry them in band.
    init(url: String, metadata: FLVMetadata, parameterSets: [NALUnit] = [], options: RTMPPublisher.Options = .init()) throws {
        builder = FLVSampleBuilder(parameterSets: parameterSets)
        publisher = try RTMPPublisher(url: url, options: options)
        publisher.send(metadata: metadata)
    }

    /// Queues one timed access unit (parameter sets in band are moved to sequence headers,
    /// sent first whenever they change).
    /// - Returns: false when the overflow policy dropped the frame.
    @discardableResult
    func send(_ accessUnit: AccessUnit) throws -> Bool {
        try send(try builder.sample(accessUnit))
    }

    /// Queues one encoded frame (times as ``FLVSampleBuilder/sample(_:)-(EncodedFrame)`` makes them).
    /// - Returns: false when the overflow policy dropped the frame.
    @discardableResult
    func send(_ frame: EncodedFrame) throws -> Bool {
        try send(try builder.sample(frame))
    }

    private func send(_ built: (avcC: [UInt8]?, sample: FLVVideoSample)) throws -> Bool {
        if let avcC = built.avcC { try publisher.send(decoderConfiguration: avcC, timestamp: built.sample.dts) }
        lastDTS = built.sample.dts
        return try publisher.send(built.sample)
    }

    /// Sends the end of sequence, unpublishes and closes; returns the counters.
    @discardableResult
    func finish() throws -> RTMPPublisher.Statistics {
        try publisher.finish(endOfSequenceTimestamp: lastDTS)
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
    static func publish(annexB: [UInt8], to url: String, timing: TimestampAssigner.Configuration = .init(),
                        realTime: Bool = true, options: RTMPPublisher.Options = .init()) throws -> RTMPPublisher.Statistics {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], timing: timing, leadingData: .skip)
        if accessUnits.isEmpty, let first = errors.first { throw first }
        let session = try RTMPPublishing(url: url, metadata: FLVSampleBuilder.metadata(for: accessUnits), options: options)
        let clock = ContinuousClock()
        let start = clock.now
        for au in accessUnits where !au.flags.hasNoPicture {
            if realTime, let dts = au.timestamps(timescale: 1000)?.dts {
                let wait = Duration.milliseconds(dts) - start.duration(to: clock.now)
                if wait > .zero {
                    Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                }
            }
            try session.send(au)
        }
        return try session.finish()
    }
}
