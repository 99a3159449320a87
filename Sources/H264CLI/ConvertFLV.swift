import FLV
import H264

/// FLV conversions for `h264 convert` (in.h264 -> out.flv, in.flv -> out.h264) and the FLV
/// output of `h264 encode`.
enum FLVConversion {
    /// Converts an Annex-B stream to an FLV file: access units per 7.4.1.2.4 with their decode
    /// and presentation times (composition time = PTS - DTS for B-frames), a sequence header
    /// whenever the parameter sets change, and `onMetaData` from the SPS.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - timing: frame rate (for streams without VUI timing) and reorder choices.
    /// - Returns: the FLV file.
    static func annexBToFLV(_ annexB: [UInt8], timing: TimestampAssigner.Configuration = .init()) throws -> [UInt8] {
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...], timing: timing, leadingData: .skip)
        if accessUnits.isEmpty, let first = errors.first { throw first }
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        try writer.writeMetadata(FLVSampleBuilder.metadata(for: accessUnits))
        for au in accessUnits where !au.flags.hasNoPicture {
            let (avcC, sample) = try builder.sample(au)
            if let avcC { try writer.writeDecoderConfiguration(avcC, timestamp: sample.dts) }
            try writer.writeSample(sample)
        }
        try writer.writeEndOfSequence()
        return writer.takeBytes()
    }

    /// True when `bytes` start with the FLV signature (`FLV`, version 1), so `h264 convert` can
    /// tell an FLV input from an Annex-B one.
    static func isFLV(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x46, 0x4C, 0x56, 0x01] as [UInt8])
    }

    /// Converts the H.264 video of an FLV file to an Annex-B stream (SPS and PPS from the
    /// sequence header before each keyframe that lacks them).
    static func flvToAnnexB(_ flv: [UInt8]) throws -> [UInt8] {
        try FLVVideoTrack(reading: flv).annexB()
    }

    /// File to file: Annex-B in, FLV out (`-` is stdin/stdout).
    static func annexBToFLV(inputPath: String, outputPath: String, timing: TimestampAssigner.Configuration = .init()) throws {
        let flv = try annexBToFLV(try Input.readAll(inputPath), timing: timing)
        try Output.write(flv, to: outputPath)
    }

    /// File to file: FLV in, Annex-B out (`-` is stdin/stdout).
    static func flvToAnnexB(inputPath: String, outputPath: String) throws {
        try Output.write(try flvToAnnexB(try Input.readAll(inputPath)), to: outputPath)
    }
}

/// Turns timed access units into FLV samples (AVCC, 4-byte lengths, parameter sets out of band)
/// and notices when the parameter sets change, so that a new sequence header goes first.
struct FLVSampleBuilder {
    private var spsByID: [Int: NALUnit] = [:]
    private var ppsByID: [Int: NALUnit] = [:]
    private var current: [UInt8]?
    private var encodedFrameOffset: Int64?

    /// Creates a builder that already knows `parameterSets` (an encoder's SPS and PPS), so
    /// that samples without parameter sets in band can go first.
    init(parameterSets: [NALUnit] = []) {
        remember(parameterSets)
    }

    /// The sample for one access unit (timestamps in milliseconds), and the avcC record to send
    /// before it when the parameter sets are new or changed (nil when the current one holds).
    /// - Throws: ``H264Error/Code/missingParameterSet`` when no SPS and PPS came before.
    mutating func sample(_ au: AccessUnit) throws -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        guard let times = au.timestamps(timescale: 1000) else {
            throw CLIError("access unit \(au.index) has no timestamps")
        }
        return try sample(nalUnits: au.nalUnits, dts: times.dts, pts: times.pts, isKeyframe: au.isKeyframe,
                          name: "access unit \(au.index)")
    }

    /// The sample for one encoded frame (timestamps in milliseconds). FLV times cannot be
    /// negative, and an encoder with frame reordering starts its DTS below 0: when the first
    /// frame's DTS is negative, every time is moved later by that much.
    mutating func sample(_ frame: EncodedFrame) throws -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        let base = TimeBase(numerator: 1, denominator: Int64(frame.timescale))
        let dts = base.rescale(frame.dts, to: 1000), pts = base.rescale(frame.pts, to: 1000)
        let offset = encodedFrameOffset ?? max(0, 0 &- dts)  // rescale saturates: no overflow
        encodedFrameOffset = offset
        return try sample(nalUnits: frame.nalUnits, dts: dts &+ offset, pts: pts &+ offset, isKeyframe: frame.isKeyframe,
                          name: "encoded frame at \(frame.pts)")
    }

    /// The one sample path: parameter sets in band are remembered (and left out of the
    /// sample), the avcC record is rebuilt and compared, the rest becomes a 4-byte AVCC sample.
    private mutating func sample(nalUnits: [NALUnit], dts: Int64, pts: Int64, isKeyframe: Bool,
                                 name: @autoclosure () -> String) throws -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        remember(nalUnits)
        guard !spsByID.isEmpty, !ppsByID.isEmpty else {
            throw H264Error.invalid(.missingParameterSet, "no SPS/PPS before \(name())")
        }
        let record = try AVCDecoderConfigurationRecord(
            parameterSets: spsByID.keys.sorted().compactMap { spsByID[$0] } + ppsByID.keys.sorted().compactMap { ppsByID[$0] })
            .serialized()
        let changed = record != current
        current = record
        let data = try AccessUnit(nalUnits: nalUnits, index: 0).avccSample(lengthSize: .four, includeParameterSets: false)
        return (changed ? record : nil, FLVVideoSample(dts: dts, pts: pts, isKeyframe: isKeyframe, data: data))
    }

    private mutating func remember(_ units: [NALUnit]) {
        for unit in units {
            guard let id = unit.parameterSetID else { continue }
            if unit.type == .sps { spsByID[id] = unit } else if unit.type == .pps { ppsByID[id] = unit }
        }
    }

    /// `onMetaData` for a stream: size and frame rate from its first SPS, duration from its
    /// timestamps.
    static func metadata(for accessUnits: [AccessUnit]) -> FLVMetadata {
        var store = ParameterSetStore()
        var sps: SequenceParameterSet?
        outer: for au in accessUnits {
            for unit in au.nalUnits where unit.type == .sps {
                if (try? store.ingest(unit)) != nil, let id = unit.parameterSetID, let s = store.sps(id: id) {
                    sps = s
                    break outer
                }
            }
        }
        let timeBase = accessUnits.first?.timeBase
        let frameSeconds = timeBase?.seconds(2)
        var duration: Double?
        if let timeBase, let end = accessUnits.compactMap({ au in au.pts.map { $0 + (au.duration ?? 0) } }).max() {
            duration = timeBase.seconds(end)
        }
        return FLVMetadata(width: sps?.width, height: sps?.height, frameRate: frameSeconds.map { 1 / $0 },
                           duration: duration, encoder: "swift-h264")
    }
}
