import H264

/// Turns timed access units (or encoded frames) into FLV samples (AVCC, 4-byte lengths,
/// parameter sets out of band) and says when a new AVC sequence header must go first.
///
/// Parameter sets in band are taken out of the samples and followed by a
/// `ParameterSetInserter` (`ParameterSetInserter.configurationChange(for:)`): a new sequence
/// header is made only when a picture refers to a parameter set whose content the last header
/// did not carry; it holds the SPS and PPS that picture refers to first, then the other sets
/// known as far as a bounded record holds them (so an ordinary stream's sets travel together,
/// and switching between PPS ids makes no new header). Checking costs a few
/// bytes read per slice, never a rebuilt record per access unit; and the headers written are at
/// most as many bytes as the input plus `ParameterSetInserter.maximumBytesPerAccessUnit`,
/// whatever the stream repeats or changes.
///
/// Memory: the parameter sets by id (copies, see `ParameterSetInserter`).
public struct FLVSampleBuilder: Sendable {
    private var inserter: ParameterSetInserter
    /// The record of the last sequence header (its length size is the samples').
    private var configuration: AVCDecoderConfigurationRecord?
    private var timeOffset: Int64?

    /// Creates a builder that already knows `parameterSets` (an encoder's SPS and PPS), so
    /// that samples without parameter sets in band can go first.
    public init(parameterSets: [NALUnit] = []) {
        inserter = ParameterSetInserter(parameterSets: parameterSets)
    }

    /// The FLV sample for one access unit or encoded frame (any `AccessUnitSample`),
    /// and the avcC record to send before it when the parameter sets it uses are new or changed
    /// (nil when the last holds).
    ///
    /// Everything FLV needs is derived here, never by the caller: the times are converted from
    /// the sample's `SampleTimestamps` to milliseconds (nearest, halves away from zero),
    /// the composition time is PTS - DTS after rounding, and since FLV times cannot be negative
    /// while a stream with frame reordering (an encoder's output, an MP4 track with an edit
    /// list) may start its DTS below 0, every time is moved later by the first DTS's magnitude
    /// when it is negative. The keyframe flag (FrameType 1) is
    /// `isRandomAccessPoint`: an IDR picture, or one with a recovery
    /// point SEI (x264's open-GOP I pictures), as FFmpeg's FLV muxer marks them.
    /// - Throws: ``FLVError/Code/missingDecoderConfiguration`` when no SPS and PPS came before;
    ///   ``FLVError/Code/invalidArgument`` for a sample without timestamps;
    ///   ``FLVError/Code/h264`` for a NAL unit that does not fit a 4-byte length.
    /// - Complexity: O(n) in the sample's bytes.
    public mutating func sample(_ sample: some AccessUnitSample) throws(FLVError) -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        guard let times = sample.timestamps(timescale: 1000) else {
            throw FLVError.invalid(.invalidArgument, "a sample without timestamps cannot go into FLV")
        }
        let (dts, pts) = shifted(dts: times.dts, pts: times.pts)
        return try self.sample(nalUnits: sample.nalUnits, dts: dts, pts: pts, isKeyframe: sample.isRandomAccessPoint,
                               name: "the sample at DTS \(dts) ms")
    }

    /// Times moved later by the first DTS's magnitude when it is negative (fixed at the first
    /// sample). Rescaled times saturate, so the sum cannot overflow.
    private mutating func shifted(dts: Int64, pts: Int64) -> (Int64, Int64) {
        let offset = timeOffset ?? max(0, 0 &- dts)
        timeOffset = offset
        return (dts &+ offset, pts &+ offset)
    }

    /// The one sample path: parameter sets in band are noted (and left out of the sample), a
    /// record is made when the picture needs one, the rest becomes a 4-byte AVCC sample.
    private mutating func sample(nalUnits: [NALUnit], dts: Int64, pts: Int64, isKeyframe: Bool,
                                 name: @autoclosure () -> String) throws(FLVError) -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        var avcC: [UInt8]?
        if let sets = inserter.configurationChange(for: nalUnits) {
            do throws(H264Error) {
                let record = try AVCDecoderConfigurationRecord(parameterSets: sets, lengthSize: .four)
                avcC = try record.serialized()
                configuration = record
            } catch {
                throw FLVError.wrapping(error, as: .missingDecoderConfiguration, "no avcC record for \(name())")
            }
        }
        guard let configuration else {
            throw FLVError.invalid(.missingDecoderConfiguration, "no SPS/PPS before \(name())")
        }
        let data: [UInt8]
        do throws(H264Error) {
            data = try configuration.avccSample(nalUnits, includeParameterSets: false)
        } catch {
            throw FLVError.h264(error, name())
        }
        return (avcC, FLVVideoSample(dts: dts, pts: pts, isKeyframe: isKeyframe, data: data))
    }
}

/// `onMetaData` for a stream, gathered access unit by access unit: size and frame rate from its
/// first SPS, duration from its timestamps.
///
/// Memory: one SPS and a few numbers, whatever the stream's length.
public struct FLVMetadataCollector: Sendable {
    private var store = ParameterSetStore()
    private var sps: SequenceParameterSet?
    private var timeBase: TimeBase?
    private var end: Int64?

    /// Creates an empty collector.
    public init() {}

    /// Takes the next access unit (with its timestamps).
    public mutating func add(_ au: AccessUnit) {
        if timeBase == nil { timeBase = au.timeBase }
        if sps == nil {
            for unit in au.nalUnits where unit.type == .sps {
                if (try? store.ingest(unit)) != nil, let id = unit.parameterSetID, let s = store.sps(id: id) {
                    sps = s
                    break
                }
            }
        }
        if let pts = au.pts {
            let e = pts &+ (au.duration ?? 0)  // timestamps of a stream in memory: small
            end = Swift.max(end ?? e, e)
        }
    }

    /// The metadata so far.
    /// - Parameter presentationDelay: added to the presentation times seen (a delay measured
    ///   by a first pass, see `TimestampOptions.presentationDelay`).
    /// - Parameter includesDuration: false when the stream is still going (live, a pipe).
    public func metadata(presentationDelay: Int64 = 0, includesDuration: Bool = true) -> FLVMetadata {
        let frameSeconds = timeBase?.seconds(2)
        var duration: Double?
        if includesDuration, let timeBase, let end { duration = timeBase.seconds(end &+ presentationDelay) }
        return FLVMetadata(width: sps?.width, height: sps?.height, frameRate: frameSeconds.map { 1 / $0 },
                           duration: duration, encoder: "swift-h264")
    }

    /// `onMetaData` for a whole stream's access units.
    public static func metadata(for accessUnits: [AccessUnit]) -> FLVMetadata {
        var collector = FLVMetadataCollector()
        for au in accessUnits { collector.add(au) }
        return collector.metadata()
    }
}
