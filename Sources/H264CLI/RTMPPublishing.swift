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
    init(url: String, metadata: FLVMetadata, options: RTMPPublisher.Options = .init()) throws {
        publisher = try RTMPPublisher(url: url, options: options)
        publisher.send(metadata: metadata)
    }

    /// Queues one access unit (its NAL units in decoding order, parameter sets in band); a new
    /// sequence header goes first whenever the parameter sets change.
    /// - Returns: false when the overflow policy dropped the frame.
    @discardableResult
    func send(accessUnit: [NALUnit], dts: Int64, pts: Int64) throws -> Bool {
        let (avcC, sample) = try builder.sample(accessUnit, dts: dts, pts: pts)
        if let avcC { try publisher.send(decoderConfiguration: avcC, timestamp: dts) }
        lastDTS = dts
        return try publisher.send(sample)
    }

    /// Sends the end of sequence, unpublishes and closes; returns the counters.
    @discardableResult
    func finish() throws -> RTMPPublisher.Statistics {
        try publisher.finish(endOfSequenceTimestamp: lastDTS)
        return publisher.statistics
    }

    /// Publishes a whole Annex-B stream at a constant frame rate.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - url: `rtmp://host[:port]/app/stream`.
    ///   - frameRate: frames per second.
    ///   - presentationOrder: each access unit's output index (see ``FLVConversion``); nil for
    ///     streams without reordering.
    ///   - realTime: pace the frames by their DTS (otherwise as fast as the policy allows).
    ///   - width: the metadata width, when known.
    ///   - height: the metadata height, when known.
    ///   - options: publisher settings.
    static func publish(annexB: [UInt8], to url: String, frameRate: Double = 25, presentationOrder: [Int]? = nil,
                        realTime: Bool = true, width: Int? = nil, height: Int? = nil,
                        options: RTMPPublisher.Options = .init()) throws -> RTMPPublisher.Statistics {
        guard frameRate > 0, frameRate.isFinite else { throw CLIError("frame rate must be positive") }
        let accessUnits = InterimAccessUnits.group(try AnnexB.split(annexB, leadingData: .skip))
        let order = presentationOrder ?? Array(accessUnits.indices)
        guard order.count == accessUnits.count else { throw CLIError("presentation order does not match the stream") }
        let delay = max(order.enumerated().map { $0.offset - $0.element }.max() ?? 0, 0)
        let ms = { (i: Int) in Int64((Double(i) * 1000 / frameRate).rounded()) }
        let session = try RTMPPublishing(url: url, metadata: FLVMetadata(width: width, height: height, frameRate: frameRate, encoder: "swift-h264"),
                                         options: options)
        let clock = ContinuousClock()
        let start = clock.now
        for (i, au) in accessUnits.enumerated() {
            if realTime {
                let wait = Duration.milliseconds(ms(i)) - start.duration(to: clock.now)
                if wait > .zero {
                    Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                }
            }
            try session.send(accessUnit: au, dts: ms(i), pts: ms(order[i] + delay))
        }
        return try session.finish()
    }
}
