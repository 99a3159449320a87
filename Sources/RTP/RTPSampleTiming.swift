import H264

/// Decode and presentation times on the 90 kHz RTP clock for received access units, from their
/// RTP timestamps: what makes an ``RTPReceivedAccessUnit`` a sample a muxer can write with the
/// sender's timing (``RTPReceiver`` sets ``RTPReceivedAccessUnit/timestamps`` with it).
///
/// The presentation time is the RTP timestamp (RFC 6184 5.1: the sampling time), unwrapped:
/// the 32-bit timestamp counted on from the first one, each access unit's the nearest to the
/// previous one modulo 2^32, so a wrap or a B picture timed before its predecessor gives the
/// right signed step. Arrival times play no part: network jitter does not reach the samples.
///
/// RTP carries no decoding time; it is derived as FFmpeg's muxers derive a missing one
/// (`compute_pkt_fields` in libavformat): with a reorder depth of `n` frames (the SPS's
/// `max_num_reorder_frames`, 0 for a stream without B pictures), each access unit's decoding
/// time is the smallest of the presentation times of itself and the `n` before it not yet
/// used. For a conforming stream that is the presentation times in ascending order, `n` access
/// units late: decoding times increase, and none is after its access unit's presentation.
/// The first `n` access units, for which no such time has arrived yet, are given the first
/// presentation time minus `n`, `n - 1`, ... frame durations (the SPS's VUI timing, else
/// ``defaultFrameDuration``). A decoding time is never less than the previous one: a stream
/// that reorders deeper than it declares gets a presentation time before its decoding time
/// there, rather than a decoding time that goes back.
///
/// Memory: `n + 1` times (at most 17).
public struct RTPSampleTiming: Sendable {
    /// The time base of the times: 1/90,000 s.
    public static let timeBase = TimeBase(numerator: 1, denominator: 90_000)
    /// The frame duration used for the first decoding times when the SPS has no VUI timing:
    /// 3,000 ticks (30 frames per second).
    public static let defaultFrameDuration: Int64 = 3_000

    /// The reorder depth in frames (0...16).
    public let reorderDepth: Int
    /// The frame duration in 90 kHz ticks, for the first decoding times.
    public let frameDuration: Int64

    private var lastTimestamp: UInt32?
    /// The first presentation time after ``restart()``.
    private var restartPresentation: Int64?
    /// The origin ``anchor(rtpTimestamp:presentationTime:)`` set, until the first access unit.
    private var origin: (rtpTimestamp: UInt32?, time: Int64)?
    private var lastPresentation: Int64 = 0
    private var firstPresentation: Int64 = 0
    private var count = 0
    private var lastDecode: Int64?
    /// Presentation times not yet used as a decoding time, at most `reorderDepth + 1`.
    private var pending: [Int64] = []

    /// Times for a stream with this reorder depth and frame duration.
    /// - Parameters:
    ///   - reorderDepth: frames a picture may be presented after pictures decoded after it
    ///     (clamped to 0...16).
    ///   - frameDuration: a frame's duration in 90 kHz ticks (clamped to 1...2^40).
    public init(reorderDepth: Int = 0, frameDuration: Int64 = RTPSampleTiming.defaultFrameDuration) {
        self.reorderDepth = Swift.min(Swift.max(reorderDepth, 0), 16)
        self.frameDuration = Swift.min(Swift.max(frameDuration, 1), 1 << 40)
        pending.reserveCapacity(self.reorderDepth &+ 1)
    }

    /// Times for the stream an SPS describes: its reorder depth
    /// (`SequenceParameterSet.reorderDepth`) and the frame duration of its VUI timing.
    public init(sps: SequenceParameterSet) {
        var duration = Self.defaultFrameDuration
        if let rate = sps.frameRate, rate.numerator > 0 {
            // 90,000 × denominator / numerator: denominator < 2^33, so the product fits 64 bits
            duration = Int64(clamping: (90_000 &* rate.denominator + rate.numerator / 2) / rate.numerator)
        }
        self.init(reorderDepth: sps.reorderDepth, frameDuration: duration)
    }

    /// The times of the next access unit in decoding order.
    /// - Parameter timestamp: its RTP timestamp.
    /// - Returns: its presentation and decoding times in 90 kHz ticks (the first presentation
    ///   time is the first timestamp).
    /// - Complexity: O(`reorderDepth`).
    public mutating func timestamps(forRTPTimestamp timestamp: UInt32) -> SampleTimestamps {
        let pts: Int64
        if let last = lastTimestamp {
            // The step modulo 2^32, as a signed 32-bit number: a wrap, or a picture before its predecessor.
            pts = lastPresentation &+ Int64(Int32(bitPattern: timestamp &- last))
        } else {
            if let restartPresentation {
                pts = restartPresentation
            } else if let origin {
                // The signed step modulo 2^32 from the anchor's RTP time: a first picture timed
                // before it (reordered) comes before its time.
                pts = origin.time &+ (origin.rtpTimestamp.map { Int64(Int32(bitPattern: timestamp &- $0)) } ?? 0)
            } else {
                pts = Int64(timestamp)
            }
            restartPresentation = nil
            origin = nil
            firstPresentation = pts
        }
        lastTimestamp = timestamp
        lastPresentation = pts
        pending.append(pts)
        var dts: Int64
        if pending.count > reorderDepth {
            let i = pending.indices.min { pending[$0] < pending[$1] }!  // not empty: just appended
            dts = pending.remove(at: i)
        } else {
            // No time of its own yet: before the first presentation, a frame apart (count < reorderDepth <= 16).
            dts = firstPresentation &- Int64(reorderDepth &- count) &* frameDuration
        }
        if let lastDecode, dts < lastDecode { dts = lastDecode }
        lastDecode = dts
        count &+= 1
        return SampleTimestamps(pts: pts, dts: dts, timeBase: Self.timeBase)
    }

    /// Sets where the timeline starts, before its first access unit: the RTP timestamp
    /// `rtpTimestamp` is the presentation time `presentationTime` (90 kHz ticks), and the first
    /// access unit's times count from there (an RTSP `PLAY` reply's `RTP-Info` `rtptime` at the
    /// start of its `Range`); with no `rtpTimestamp`, the first access unit's presentation time
    /// is `presentationTime`. Without an anchor, the first presentation time is the first RTP
    /// timestamp. No effect once an access unit has been timed.
    public mutating func anchor(rtpTimestamp: UInt32?, presentationTime: Int64) {
        guard lastTimestamp == nil, restartPresentation == nil else { return }
        origin = (rtpTimestamp, presentationTime)
    }

    /// Starts a new timeline that goes on from this one, with the same reorder depth: the next
    /// access unit's presentation time follows the last times, whatever its RTP timestamp (a
    /// new SSRC, whose timestamps start at a random value), far enough for the first decoding
    /// times of the new timeline to follow the last one.
    public mutating func restart() {
        guard lastTimestamp != nil else { return }
        // (reorderDepth + 1) frames <= 17 × frameDuration; times are 90 kHz counts from a 32-bit start: no overflow
        restartPresentation = Swift.max(lastPresentation, lastDecode ?? lastPresentation)
            &+ Int64(reorderDepth &+ 1) &* frameDuration
        lastTimestamp = nil
        pending.removeAll(keepingCapacity: true)
        count = 0
    }
}
