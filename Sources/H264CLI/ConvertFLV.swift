import FLV
import H264

/// FLV conversions for `h264 convert` (in.h264 -> out.flv, in.flv -> out.h264) and the FLV
/// output of `h264 encode`.
enum FLVConversion {
    /// Converts an Annex-B stream to an FLV file.
    ///
    /// Access units are found with ``InterimAccessUnits`` and timed at a constant frame rate.
    /// Presentation times come from `presentationOrder` (the access-unit layer's output order);
    /// without it PTS equals DTS, right only for streams without reordering.
    /// - Parameters:
    ///   - annexB: the stream.
    ///   - frameRate: frames per second (DTS of access unit `i` is `i * 1000 / frameRate` ms).
    ///   - width: the `onMetaData` width, when known.
    ///   - height: the `onMetaData` height, when known.
    ///   - presentationOrder: for each access unit in decoding order, its index in output order.
    /// - Returns: the FLV file.
    static func annexBToFLV(_ annexB: [UInt8], frameRate: Double = 25, width: Int? = nil, height: Int? = nil,
                            presentationOrder: [Int]? = nil) throws -> [UInt8] {
        guard frameRate > 0, frameRate.isFinite else { throw CLIError("frame rate must be positive") }
        let units = try AnnexB.split(annexB, leadingData: .skip)
        let accessUnits = InterimAccessUnits.group(units)
        if let presentationOrder, presentationOrder.count != accessUnits.count {
            throw CLIError("presentation order has \(presentationOrder.count) entries for \(accessUnits.count) access units")
        }
        let order = presentationOrder ?? Array(accessUnits.indices)
        // Delay every PTS by the largest reordering so that no PTS is before its DTS.
        let delay = order.enumerated().map { $0.offset - $0.element }.max().map { max($0, 0) } ?? 0
        let ms = { (i: Int) in Int64((Double(i) * 1000 / frameRate).rounded()) }
        var builder = FLVSampleBuilder()
        var writer = FLVWriter()
        let frameCount = Double(accessUnits.count)
        try writer.writeMetadata(FLVMetadata(width: width, height: height, frameRate: frameRate,
                                         duration: frameCount / frameRate, encoder: "swift-h264"))
        for (i, au) in accessUnits.enumerated() {
            let dts = ms(i)
            let (avcC, sample) = try builder.sample(au, dts: dts, pts: ms(order[i] + delay))
            if let avcC { try writer.writeDecoderConfiguration(avcC, timestamp: dts) }
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
    static func annexBToFLV(inputPath: String, outputPath: String, frameRate: Double = 25,
                            width: Int? = nil, height: Int? = nil) throws {
        let flv = try annexBToFLV(try Input.readAll(inputPath), frameRate: frameRate, width: width, height: height)
        try Output.write(flv, to: outputPath)
    }

    /// File to file: FLV in, Annex-B out (`-` is stdin/stdout).
    static func flvToAnnexB(inputPath: String, outputPath: String) throws {
        try Output.write(try flvToAnnexB(try Input.readAll(inputPath)), to: outputPath)
    }
}

/// Turns access units (lists of NAL units, in-band parameter sets included) into FLV samples,
/// and notices when the parameter sets change so that a new sequence header can be written.
///
/// TODO(integration): build the record with the core `AVCDecoderConfigurationRecord` and the
/// samples with the AVCC writer once they are merged.
struct FLVSampleBuilder {
    private var spsByID: [UInt32: NALUnit] = [:]
    private var ppsByID: [UInt32: NALUnit] = [:]
    private var current: [UInt8]?

    /// The sample for one access unit, and the avcC record to send before it when the
    /// parameter sets are new or changed (nil when the current one still holds).
    /// - Throws: ``H264Error/Code/missingParameterSet`` when the first access unit brings no
    ///   SPS and PPS.
    mutating func sample(_ au: [NALUnit], dts: Int64, pts: Int64) throws(H264Error) -> (avcC: [UInt8]?, sample: FLVVideoSample) {
        for unit in au where unit.type == .sps || unit.type == .pps {
            var r = BitReader(unit.rbsp)
            if unit.type == .sps { try r.skipBits(24) }  // profile_idc, constraint flags, level_idc
            let id = try r.readUE()
            if unit.type == .sps { spsByID[id] = unit } else { ppsByID[id] = unit }
        }
        guard !spsByID.isEmpty, !ppsByID.isEmpty else {
            throw H264Error.invalid(.missingParameterSet, "no SPS/PPS before the first access unit")
        }
        let record = InterimAccessUnits.avcC(sps: spsByID.sorted { $0.key < $1.key }.map(\.value),
                                             pps: ppsByID.sorted { $0.key < $1.key }.map(\.value))
        let changed = record != current
        current = record
        var data: [UInt8] = []
        for unit in au {
            data.writeUInt32(UInt32(unit.count))
            data.append(contentsOf: unit.bytes)
        }
        let keyframe = au.contains { $0.type == .idrSlice }
        return (changed ? record : nil, FLVVideoSample(dts: dts, pts: pts, isKeyframe: keyframe, data: data))
    }
}

/// A stand-in for the access-unit layer: groups NAL units into access units by a simple rule.
///
/// TODO(integration): replace with the core access-unit assembly (7.4.1.2.4).
enum InterimAccessUnits {
    /// Groups NAL units: a new access unit starts at an AUD, SPS, PPS, SEI or types 14...18
    /// after a slice, or at a slice with `first_mb_in_slice` 0 after a slice.
    static func group(_ units: [NALUnit]) -> [[NALUnit]] {
        var out: [[NALUnit]] = []
        var current: [NALUnit] = []
        var hasSlice = false
        for unit in units {
            let t = unit.type.rawValue
            let startsAU: Bool
            if unit.type.isVCL {
                // first_mb_in_slice is the first ue(v) of the payload: 0 is the single bit '1'.
                startsAU = hasSlice && (unit.payload.first.map { $0 & 0x80 != 0 } ?? false)
            } else {
                startsAU = hasSlice && ((6...9).contains(t) || (14...18).contains(t))
            }
            if startsAU {
                out.append(current)
                current = []
                hasSlice = false
            }
            current.append(unit)
            if unit.type.isVCL { hasSlice = true }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// An `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 5.3.3.1) from parameter sets:
    /// version 1, profile/compatibility/level from the first SPS, 4-byte lengths, without the
    /// High-profile extension.
    static func avcC(sps: [NALUnit], pps: [NALUnit]) -> [UInt8] {
        let first = sps.first.map { Array($0.bytes) } ?? []
        let profile = first.count > 3 ? Array(first[1...3]) : [66, 0, 30]
        var out: [UInt8] = [1] + profile + [0xFF, 0xE0 | UInt8(min(sps.count, 31))]
        for s in sps.prefix(31) {
            out.writeUInt16(UInt16(clamping: s.count))
            out.append(contentsOf: s.bytes.prefix(Int(UInt16.max)))
        }
        out.append(UInt8(min(pps.count, 255)))
        for p in pps.prefix(255) {
            out.writeUInt16(UInt16(clamping: p.count))
            out.append(contentsOf: p.bytes.prefix(Int(UInt16.max)))
        }
        return out
    }
}
