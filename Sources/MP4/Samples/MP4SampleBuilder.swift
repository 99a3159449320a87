import H264

/// Turns the core's samples (`AccessUnit` from the access-unit layer, `EncodedFrame` from
/// an encoder: any `AccessUnitSample`) into MP4 samples and the sample description each needs: the thin adapter
/// between the core's sample model and the writers' ``MP4Sample``.
///
/// Parameter sets are followed with the core's `ParameterSetInserter`
/// (`configurationChange(for:)`): a new ``MP4SampleDescription`` (the writers then add an
/// `stsd` entry or an init segment) is made only when a picture refers to a parameter set whose
/// content the last description's avcC record did not carry. The record holds the sets that
/// picture refers to (its SPS first, which gives the profile, level and picture size), then the
/// other sets known, as far as a bounded record holds them: an ordinary stream's parameter sets
/// all go into one description. For `avc1` the SPS and PPS leave the samples for the record;
/// for `avc3` they also stay in the samples. Times are converted to the builder's ``timescale``,
/// which each sample carries (``MP4Sample/timescale``).
///
/// Memory: the parameter sets by id (see `ParameterSetInserter`) and the last description.
///
/// ```swift
/// var builder = MP4SampleBuilder(timescale: 90_000)
/// for au in accessUnits where !au.flags.hasNoPicture {
///     let (description, sample) = try builder.sample(au)
///     try writer.append(sample, description: description)
/// }
/// ```
public struct MP4SampleBuilder: Sendable {
    /// The track's timescale (units per second) the samples' times are given in.
    public let timescale: Int64
    /// The sample entry type: `avc1` (parameter sets out of band) or `avc3` (also in band).
    public let format: MP4FourCC
    /// The description of the last sample.
    public private(set) var description: MP4SampleDescription?
    private var parameterSets: ParameterSetInserter

    /// Creates a builder.
    /// - Parameters:
    ///   - timescale: the track's timescale; see ``suggestedTimescale(for:)``.
    ///   - parameterSets: parameter sets known before the first access unit (an encoder's).
    ///   - format: `avc1` (default) or `avc3`.
    public init(timescale: Int64, parameterSets: [NALUnit] = [], format: MP4FourCC = "avc1") {
        self.timescale = max(1, timescale)
        self.format = format
        self.parameterSets = ParameterSetInserter(parameterSets: parameterSets)
    }

    /// The sample for an access unit or an encoded frame (any `AccessUnitSample` with
    /// timestamps: from `AccessUnits.assemble`, an `AccessUnitParser`, an encoder), and its
    /// description.
    ///
    /// Its `SampleTimestamps` are converted to the builder's ``timescale`` here (nearest tick,
    /// halves away from zero), and the sample says so (``MP4Sample/timescale``): a writer with
    /// another timescale converts again rather than misreading the ticks. The first DTS of an
    /// encoder with frame reordering is negative, which the writers accept (they start the
    /// file's timeline at the first DTS). The sync
    /// flag is `isRandomAccessPoint` (an IDR picture or a recovery point, as FFmpeg marks
    /// them); `sample_depends_on` and `sample_is_depended_on` come from the sample's flags.
    /// - Throws: ``MP4Error/Code/invalidArgument`` for a sample without timestamps,
    ///   ``MP4Error/Code/invalidDecoderConfiguration`` before any SPS and PPS.
    /// - Complexity: O(n) in the sample's bytes.
    public mutating func sample(_ sample: some AccessUnitSample) throws(MP4Error) -> (description: MP4SampleDescription, sample: MP4Sample) {
        guard let times = sample.timestamps?.rescaled(to: timescale) else {
            throw MP4Error.invalid(.invalidArgument, "a sample without timestamps cannot go into MP4")
        }
        return try self.sample(sample.nalUnits, dts: times.dts, pts: times.pts, duration: times.duration,
                               flags: MP4SampleFlags(sample.flags, isSync: sample.isRandomAccessPoint))
    }

    /// The one sample path: parameter sets followed, a new description when the picture needs
    /// one, the NAL units written with the record's length size.
    private mutating func sample(_ units: [NALUnit], dts: Int64, pts: Int64, duration: Int64?,
                                 flags: MP4SampleFlags) throws(MP4Error) -> (description: MP4SampleDescription, sample: MP4Sample) {
        if let sets = parameterSets.configurationChange(for: units) {
            let record: AVCDecoderConfigurationRecord
            do { record = try AVCDecoderConfigurationRecord(parameterSets: sets) } catch {
                throw MP4Error.wrapping(error, as: .invalidDecoderConfiguration, "sample at DTS \(dts)")
            }
            let made = try MP4SampleDescription(decoderConfiguration: record, format: format)
            if made != description { description = made }
        }
        guard let description, let record = description.decoderConfiguration else {
            throw MP4Error.invalid(.invalidDecoderConfiguration, "no SPS and PPS before the sample at DTS \(dts)")
        }
        let data: [UInt8]
        do {
            data = try record.avccSample(units, includeParameterSets: format == "avc3")
        } catch {
            throw MP4Error.h264(error, "sample at DTS \(dts)")
        }
        return (description, MP4Sample(data: data, decodeTime: dts, presentationTime: pts, duration: duration, flags: flags,
                                       timescale: timescale))
    }

    /// A timescale for samples timed in `timeBase`: the smallest one in which every time of
    /// the base is a whole number of ticks, raised by a whole factor to at least 10,000 (as
    /// FFmpeg raises video timescales; some players handle coarse ones badly). 90,000 when the
    /// exact one would not fit 32 bits.
    ///
    /// 25 fps (field time base 1/50) gives 10,000; 30000/1001 fps (1001/60000) gives 60,000.
    public static func suggestedTimescale(for timeBase: TimeBase) -> Int64 {
        let n = timeBase.numerator, d = timeBase.denominator
        guard n > 0, d > 0 else { return 90_000 }
        var a = n, b = d
        while b != 0 { (a, b) = (b, a % b) }
        let exact = d / a  // ticks per second that make every time of the base whole
        guard exact <= Int64(UInt32.max) else { return 90_000 }
        if exact >= 10_000 { return exact }
        let factor = (10_000 + exact - 1) / exact  // exact >= 1: no overflow
        return exact * factor
    }
}

extension MP4SampleFlags {
    /// The flags of an access unit as FFmpeg and Apple's muxers write them: depends on others
    /// when not a sync sample and predicted (`sample_depends_on` 1, else 2), depended on when
    /// some slice has `nal_ref_idc` > 0 (`sample_is_depended_on` 1, else 2).
    /// - Parameters:
    ///   - flags: the core's flags for the access unit.
    ///   - isSync: whether the sample is a sync sample (the core's keyframe, by default IDR).
    public init(_ flags: AccessUnitFlags, isSync: Bool? = nil) {
        let sync = isSync ?? flags.isSync
        self.init(isSync: sync,
                  dependsOn: sync && !flags.dependsOnOthers ? .no : (flags.dependsOnOthers ? .yes : .no),
                  isDependedOn: flags.isDependedOnByOthers ? .yes : .no)
    }
}

extension MP4Sample {
    /// The sample as the core's access unit: its NAL units (views into ``data``), flags derived
    /// from them, and its times in a time base of 1/`timescale` seconds.
    /// - Parameters:
    ///   - description: the sample's description (for the NAL length size).
    ///   - index: the access unit's index in decoding order.
    ///   - timescale: the track's timescale.
    /// - Throws: ``MP4Error/Code/h264`` for a sample whose NAL lengths do not add up.
    public func accessUnit(description: MP4SampleDescription, index: Int, timescale: Int64) throws(MP4Error) -> AccessUnit {
        let lengthSize = description.decoderConfiguration?.nalUnitLengthSize ?? .four
        let units: [NALUnit]
        do { units = try AVCC.split(data, lengthSize: lengthSize) } catch {
            throw MP4Error.h264(error, "sample \(index)")
        }
        var au = AccessUnit(nalUnits: units, index: index, flags: AccessUnitFlags(accessUnit: units))
        if flags.isSync && !au.flags.isSync { au.flags.isRandomAccess = true }
        au.dts = decodeTime
        au.pts = presentationTime
        au.duration = duration
        au.timeBase = TimeBase(numerator: 1, denominator: max(1, timescale))
        return au
    }
}
