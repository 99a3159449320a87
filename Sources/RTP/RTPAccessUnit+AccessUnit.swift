import H264

extension RTPAccessUnit {
    /// The RTP form of an access unit: ``init(sample:)``, which takes any `AccessUnitSample`
    /// (an access unit is one) and converts its time the same way.
    /// - Returns: nil when the access unit has no timestamps yet.
    @available(*, deprecated, renamed: "init(sample:)")
    public init?(_ accessUnit: AccessUnit) {
        self.init(sample: accessUnit)
    }

    /// The access units of an Annex-B stream, timed on the 90 kHz clock in presentation order.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    public static func accessUnits(annexB: ArraySlice<UInt8>, timing: TimestampOptions = .init()) -> [RTPAccessUnit] {
        AccessUnits.assemble(annexB: annexB, timing: timing, leadingData: .skip).accessUnits.compactMap { RTPAccessUnit(sample: $0) }
    }
}
