import H264

extension RTPAccessUnit {
    /// The RTP form of an access unit: its NAL units and its presentation time on the 90 kHz
    /// RTP clock (RFC 6184 5.1: the timestamp is the sampling, that is presentation, time).
    /// - Returns: nil when the access unit has no timestamps yet.
    public init?(_ accessUnit: AccessUnit) {
        guard let times = accessUnit.timestamps(timescale: 90_000) else { return nil }
        self.init(nalUnits: accessUnit.nalUnits, timestamp90kHz: times.pts)
    }

    /// The access units of an Annex-B stream, timed on the 90 kHz clock in presentation order.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    public static func accessUnits(annexB: ArraySlice<UInt8>, timing: TimestampAssigner.Configuration = .init()) -> [RTPAccessUnit] {
        AccessUnits.assemble(annexB: annexB, timing: timing, leadingData: .skip).accessUnits.compactMap(RTPAccessUnit.init)
    }
}
