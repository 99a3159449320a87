/// The one sample model shared by parsed access units (``AccessUnit``) and encoder output
/// (``EncodedFrame``): the same names and meanings for what a muxer or a player asks of a
/// sample, whichever side it came from.
///
/// - ``isSyncSample``: an IDR picture; every later picture decodes without any earlier one
///   (an MP4 sync sample, VideoToolbox's `kCMSampleAttachmentKey_NotSync` absent).
/// - ``isRandomAccessPoint``: a sync sample, or a picture with a recovery point SEI (open GOP,
///   intra refresh) where a player can start and be correct after the recovery frame count.
///
/// Parameter sets travel out of band by default (in the avcC, as VideoToolbox's samples
/// carry none): ``avccSample(lengthSize:includeParameterSets:)`` drops them on request, and
/// ``annexBSample(includeParameterSets:parameterSets:)`` puts given SPS/PPS before each sync
/// sample, the form an Annex-B file or an RTP/RTSP sender needs.
///
/// Times are one ``SampleTimestamps`` value on both: ``timestamps`` (decode and presentation
/// time on the sample's own clock), converted to another clock by
/// ``SampleTimestamps/rescaled(to:)`` or ``timestamps(timescale:)``. The library's muxers and
/// packetisers take any `AccessUnitSample` and do the conversion, the millisecond rounding and
/// the shift of a negative first DTS themselves.
public protocol AccessUnitSample: Sendable {
    /// The NAL units in decoding order, without framing.
    var nalUnits: [NALUnit] { get }
    /// Flags derived from the NAL units (see ``AccessUnitFlags/init(accessUnit:)``).
    var flags: AccessUnitFlags { get }
    /// Decode and presentation time on the sample's clock: always present on encoder output,
    /// nil on an access unit whose times were not assigned yet.
    var timestamps: SampleTimestamps? { get }
}

extension AccessUnitSample {
    /// True for an IDR access unit: a sync sample.
    @inlinable public var isSyncSample: Bool { flags.isSync }

    /// True for an IDR access unit or one that starts random access with a recovery point SEI:
    /// where a player can start or seek.
    @inlinable public var isRandomAccessPoint: Bool { flags.isSync || flags.isRandomAccess }

    /// Decode and presentation timestamps converted to `timescale` ticks per second (90,000 for
    /// RTP, 1,000 for FLV), rounded to the nearest tick (halves away from zero, see
    /// ``TimeBase/rescale(_:to:)``); nil before timestamps are assigned or for a timescale
    /// below 1.
    public func timestamps(timescale: Int64) -> (dts: Int64, pts: Int64)? {
        guard timescale > 0, let t = timestamps?.rescaled(to: timescale) else { return nil }
        return (t.dts, t.pts)
    }

    /// The sample as one length-prefixed (AVCC) sample, the form MP4 and FLV carry.
    ///
    /// - Parameters:
    ///   - lengthSize: the NAL unit length size (1, 2 or 4 bytes; the avcC's
    ///     `lengthSizeMinusOne` + 1).
    ///   - includeParameterSets: keep SPS and PPS the sample carries; false when they travel in
    ///     the avcC record only.
    /// - Throws: ``H264Error/Code/nalUnitTooLarge`` when a NAL unit does not fit the length size.
    /// - Complexity: O(n) in the sample's size; the result is its size plus the prefixes.
    public func avccSample(lengthSize: AVCC.LengthSize = .four, includeParameterSets: Bool = true) throws(H264Error) -> [UInt8] {
        try AVCC.sample(nalUnits, lengthSize: lengthSize, includeParameterSets: includeParameterSets)
    }

    /// The sample as an Annex-B byte stream: each NAL unit after a 4-byte start code.
    ///
    /// - Parameters:
    ///   - includeParameterSets: keep SPS and PPS the sample carries.
    ///   - parameterSets: SPS and PPS (an encoder's ``FrameEncoder/parameterSets``, an avcC's)
    ///     to write before each sync sample, after its access unit delimiter if it has one;
    ///     the sample's own SPS and PPS are then left out, so they are never written twice.
    ///     Empty (the default) writes the sample as carried.
    /// - Complexity: O(n) in the sample's size plus the parameter sets'.
    public func annexBSample(includeParameterSets: Bool = true, parameterSets: [NALUnit] = []) -> [UInt8] {
        let prepend = isSyncSample && !parameterSets.isEmpty
        let keepOwn = includeParameterSets && !prepend
        var out: [UInt8] = []
        out.reserveCapacity(nalUnits.reduce(0) { $0 &+ $1.count &+ 4 } &+ (prepend ? parameterSets.reduce(0) { $0 &+ $1.count &+ 4 } : 0))
        var pending = prepend
        for unit in nalUnits {
            if pending && unit.type != .accessUnitDelimiter {
                for set in parameterSets { AnnexB.append(set, to: &out) }
                pending = false
            }
            if unit.type.isSPSOrPPS && !keepOwn { continue }
            AnnexB.append(unit, to: &out)
        }
        if pending { for set in parameterSets { AnnexB.append(set, to: &out) } }
        return out
    }
}

extension NALUnitType {
    /// True for a sequence or picture parameter set (the NAL units an avcC carries).
    fileprivate var isSPSOrPPS: Bool { self == .sps || self == .pps }
}
