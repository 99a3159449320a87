import H264

extension RTPAccessUnit {
    /// The RTP form of any sample (an encoder's `EncodedFrame`, a parsed `AccessUnit`): its NAL
    /// units, and its presentation time converted from its own clock to the 90 kHz RTP clock
    /// (RFC 6184 5.1: the timestamp is the sampling, that is presentation, time), rounded to
    /// the nearest tick, halves away from zero, exactly (`TimeBase.rescale(_:to:)`).
    /// - Returns: nil when the sample has no timestamps yet.
    public init?(sample: some AccessUnitSample) {
        guard let times = sample.timestamps(timescale: RTPPacketizer.clockRate) else { return nil }
        self.init(nalUnits: sample.nalUnits, timestamp90kHz: times.pts)
    }
}

extension RTPPacketizer {
    /// The RTP clock rate of H.264 video (RFC 6184 8.2.1): 90,000 ticks per second.
    public static let clockRate: Int64 = 90_000

    /// The RTP timestamp the packets of `sample` carry: its presentation time on the 90 kHz
    /// clock (nearest tick, halves away from zero), plus
    /// ``Options/initialTimestamp``, modulo 2^32 (RFC 3550 5.1: the timestamp wraps).
    /// A negative time wraps the same way, so the spacing between samples is kept.
    /// - Returns: nil when the sample has no timestamps.
    public func rtpTimestamp(for sample: some AccessUnitSample) -> UInt32? {
        sample.timestamps.map { rtpTimestamp(at: $0.pts, timeBase: $0.timeBase) }
    }

    /// The RTP timestamp of media time `time` on a clock of `timeBase` seconds per unit: what
    /// an RTCP sender report carries beside its wall-clock time (RFC 3550 6.4.1: the same units
    /// and random offset as the data packets). Converted to 90 kHz as ``rtpTimestamp(for:)``
    /// converts a sample's presentation time (nearest tick, halves away from zero, exactly),
    /// plus ``Options/initialTimestamp``, modulo 2^32.
    /// - Complexity: O(1).
    public func rtpTimestamp(at time: Int64, timeBase: TimeBase) -> UInt32 {
        options.initialTimestamp &+ UInt32(truncatingIfNeeded: timeBase.rescale(time, to: Self.clockRate))
    }

    /// The RTP timestamp of a media time measured by a clock (the time since the stream's
    /// zero, as a sender paced in real time has it): see ``rtpTimestamp(at:timeBase:)``.
    /// - Complexity: O(1).
    public func rtpTimestamp(at mediaTime: Duration) -> UInt32 {
        let (seconds, attoseconds) = mediaTime.components
        // Whole seconds wrap modulo 2^64 in the product, and so modulo 2^32 in the result.
        let ticks = seconds &* Self.clockRate &+ Self.attosecond.rescale(attoseconds, to: Self.clockRate)
        return options.initialTimestamp &+ UInt32(truncatingIfNeeded: ticks)
    }

    private static let attosecond = TimeBase(numerator: 1, denominator: 1_000_000_000_000_000_000)

    /// Appends the RTP packets of one access unit or encoded frame to `packets`, its
    /// timestamp converted by the library (``rtpTimestamp(for:)``): the caller never converts
    /// to 90 kHz.
    ///
    /// An encoder's samples carry no SPS/PPS by default (they travel out of band): give the
    /// encoder's parameter sets as ``ParameterSetInsertion/given(_:)`` so that each IDR picture
    /// goes out with them, or put them in the SDP's `sprop-parameter-sets`.
    /// - Throws: ``RTPError/Code/invalidArgument`` for a sample without timestamps; what
    ///   packetising an ``RTPAccessUnit`` throws (a NAL unit over the MTU in mode 0).
    /// - Complexity: as packetising an ``RTPAccessUnit``: O(n) in the sample's bytes.
    public mutating func packetize(_ sample: some AccessUnitSample, into packets: inout RTPPacketBuffer) throws(RTPError) {
        guard let unit = RTPAccessUnit(sample: sample) else {
            throw RTPError.invalid(.invalidArgument, "a sample without timestamps has no RTP timestamp")
        }
        try packetize(unit, into: &packets)
    }

    /// The RTP packets of an `AsyncSequence` of access units or encoded frames (an
    /// `AsyncFrameEncoder`'s output, a parser's access units), one ``RTPPacketBuffer`` per
    /// sample: see ``RTPPacketSequence``. The sequence packetises with a copy of this
    /// packetiser (its sequence numbers and parameter sets as they are now).
    public func packets<Samples: AsyncSequence>(from samples: Samples) -> RTPPacketSequence<Samples>
    where Samples.Element: AccessUnitSample {
        RTPPacketSequence(samples: samples, packetizer: self)
    }
}

/// The RTP packets of an `AsyncSequence` of samples: for each access unit or encoded frame,
/// one ``RTPPacketBuffer`` holding its packets in order (the last with the marker bit),
/// timestamps converted to the 90 kHz clock by the library.
///
/// ```swift
/// let packetizer = try RTPPacketizer(.init(ssrc: 0x1234_5678, parameterSets: .given(encoder.parameterSets)))
/// for try await packets in packetizer.packets(from: encoder.encodedFrames(from: frames)) {
///     packets.forEachPacket { socket.send($0) }
/// }
/// ```
///
/// **Back-pressure.** A sample is pulled only when the previous packets were taken. The buffer
/// is reused when the consumer no longer holds the previous one, so a steady stream allocates
/// nothing.
///
/// **Cancellation.** `next()` throws `CancellationError` when the task is cancelled, without
/// pulling another sample.
///
/// - Complexity: O(n) per sample in its bytes; memory is one sample's packets.
public struct RTPPacketSequence<Samples: AsyncSequence>: AsyncSequence where Samples.Element: AccessUnitSample {
    public typealias Element = RTPPacketBuffer

    let samples: Samples
    let packetizer: RTPPacketizer

    /// Creates the iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(samples: samples.makeAsyncIterator(), packetizer: packetizer)
    }

    /// Pulls samples and packetises them one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var samples: Samples.AsyncIterator
        var packetizer: RTPPacketizer
        var packets = RTPPacketBuffer()

        /// The packets of the next sample with a picture or other NAL units; nil at the end.
        /// - Throws: `CancellationError` when the task is cancelled; what the samples throw;
        ///   ``RTPError/Code/invalidArgument`` for a sample without timestamps.
        public mutating func next() async throws -> RTPPacketBuffer? {
            while true {
                try Task.checkCancellation()
                guard let sample = try await samples.next() else { return nil }
                packets.removeAll()
                try packetizer.packetize(sample, into: &packets)
                if !packets.isEmpty { return packets }
            }
        }
    }
}

extension RTPPacketSequence: Sendable where Samples: Sendable {}
