/// The `AVCDecoderConfigurationRecord` of ISO/IEC 14496-15 5.3.3.1: the payload of an MP4
/// `avcC` box (FFmpeg's H.264 "extradata"), which carries a stream's parameter sets out of band
/// and the size of the NAL unit length fields of its samples.
///
/// Layout: `configurationVersion` (1), `AVCProfileIndication`, `profile_compatibility`,
/// `AVCLevelIndication`, six reserved `1` bits and `lengthSizeMinusOne` (2 bits), three reserved
/// `1` bits and the SPS count (5 bits), each SPS with a 16-bit length, the PPS count (8 bits),
/// each PPS with a 16-bit length; then, for every profile other than 66, 77 and 88, the
/// ``HighProfileExtension``. Parameter sets are NAL units as carried (with emulation-prevention
/// bytes).
///
/// The API follows CoreMedia's H.264 format description: ``parameterSet(at:)`` counts the
/// SPSs first, then the PPSs; ``parameterSetCount``; ``nalUnitLengthSize``;
/// ``init(parameterSets:lengthSize:)``.
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    /// The fields that follow the PPSs for profiles other than 66, 77 and 88.
    public struct HighProfileExtension: Hashable, Sendable {
        /// `chroma_format` (the SPS's `chroma_format_idc`), 0...3.
        public var chromaFormat: UInt8
        /// `bit_depth_luma_minus8`, 0...7.
        public var bitDepthLumaMinus8: UInt8
        /// `bit_depth_chroma_minus8`, 0...7.
        public var bitDepthChromaMinus8: UInt8
        /// The SPS extension NAL units (type 13).
        public var sequenceParameterSetExtensions: [NALUnit]

        /// Creates the extension.
        public init(chromaFormat: UInt8, bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8,
                    sequenceParameterSetExtensions: [NALUnit] = []) {
            self.chromaFormat = chromaFormat & 3
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8 & 7
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8 & 7
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }

    /// `configurationVersion`; 1.
    public var configurationVersion: UInt8 = 1
    /// `AVCProfileIndication`: the first SPS's `profile_idc`.
    public var profileIndication: UInt8
    /// `profile_compatibility`: the first SPS's constraint flags byte.
    public var profileCompatibility: UInt8
    /// `AVCLevelIndication`: the first SPS's `level_idc`.
    public var levelIndication: UInt8
    /// The size of the NAL unit length fields in the samples (`lengthSizeMinusOne + 1`).
    public var nalUnitLengthSize: AVCC.LengthSize
    /// The SPS NAL units, at most 31.
    public var sequenceParameterSets: [NALUnit]
    /// The PPS NAL units, at most 255.
    public var pictureParameterSets: [NALUnit]
    /// The High-profile fields; nil when absent (always for profiles 66, 77 and 88, and in
    /// records written by older muxers, which FFmpeg and others accept).
    public var highProfileExtension: HighProfileExtension?

    /// True for the profiles whose record carries the ``HighProfileExtension``: all but
    /// Baseline (66), Main (77) and Extended (88).
    public static func profileHasExtension(_ profileIndication: UInt8) -> Bool {
        profileIndication != 66 && profileIndication != 77 && profileIndication != 88
    }

    // MARK: - CoreMedia-style access

    /// The number of parameter sets: SPSs plus PPSs.
    public var parameterSetCount: Int { sequenceParameterSets.count &+ pictureParameterSets.count }

    /// The parameter set at `index`, counting the SPSs first, then the PPSs; nil when out of range.
    public func parameterSet(at index: Int) -> NALUnit? {
        guard index >= 0 else { return nil }
        if index < sequenceParameterSets.count { return sequenceParameterSets[index] }
        let p = index &- sequenceParameterSets.count
        return p < pictureParameterSets.count ? pictureParameterSets[p] : nil
    }

    /// All parameter sets in record order: SPSs, PPSs, then SPS extensions.
    public var parameterSets: [NALUnit] {
        sequenceParameterSets + pictureParameterSets + (highProfileExtension?.sequenceParameterSetExtensions ?? [])
    }

    // MARK: - Building

    /// Builds a record from parameter sets, as a muxer does: profile, compatibility and level
    /// from the first SPS and, for profiles other than 66, 77 and 88, the High-profile extension
    /// with its chroma format and bit depths.
    /// - Parameters:
    ///   - parameterSets: SPS (type 7), PPS (type 8) and SPS extension (type 13) NAL units, in
    ///     any order; each kind keeps its order.
    ///   - lengthSize: the NAL unit length size of the samples.
    /// - Throws: ``H264Error/Code/missingParameterSet`` without an SPS,
    ///   ``H264Error/Code/invalidArgument`` for another NAL unit type,
    ///   ``H264Error/Code/limitExceeded`` for more than 31 SPSs or 255 PPSs or SPS extensions,
    ///   ``H264Error/Code/nalUnitTooLarge`` for a parameter set over 65,535 bytes, and the errors
    ///   of reading the first SPS.
    public init(parameterSets: [NALUnit], lengthSize: AVCC.LengthSize = .four) throws(H264Error) {
        var sps: [NALUnit] = [], pps: [NALUnit] = [], ext: [NALUnit] = []
        for unit in parameterSets {
            guard unit.count <= Int(UInt16.max) else {
                throw H264Error.invalid(.nalUnitTooLarge, "parameter set of \(unit.count) bytes does not fit a 16-bit length")
            }
            switch unit.type {
            case .sps: sps.append(unit)
            case .pps: pps.append(unit)
            case .spsExtension: ext.append(unit)
            default:
                throw H264Error.invalid(.invalidArgument, "NAL unit type \(unit.type) is not a parameter set for avcC")
            }
        }
        guard let first = sps.first else { throw H264Error.invalid(.missingParameterSet, "avcC needs an SPS") }
        guard sps.count <= 31 else { throw H264Error.invalid(.limitExceeded, "\(sps.count) SPSs; avcC holds 31") }
        guard pps.count <= 255, ext.count <= 255 else {
            throw H264Error.invalid(.limitExceeded, "\(pps.count) PPSs, \(ext.count) SPS extensions; avcC holds 255")
        }
        let essentials = try SPSEssentials(first)
        profileIndication = essentials.profileIDC
        profileCompatibility = essentials.constraintFlags
        levelIndication = essentials.levelIDC
        nalUnitLengthSize = lengthSize
        sequenceParameterSets = sps
        pictureParameterSets = pps
        if Self.profileHasExtension(essentials.profileIDC) {
            // The essentials' ranges (<= 3, <= 6) make these conversions exact.
            highProfileExtension = HighProfileExtension(
                chromaFormat: UInt8(truncatingIfNeeded: essentials.chromaFormatIDC),
                bitDepthLumaMinus8: UInt8(truncatingIfNeeded: essentials.bitDepthLumaMinus8),
                bitDepthChromaMinus8: UInt8(truncatingIfNeeded: essentials.bitDepthChromaMinus8),
                sequenceParameterSetExtensions: ext)
        } else {
            highProfileExtension = nil
        }
    }

    // MARK: - Parsing

    /// Parses a record (an `avcC` box payload).
    ///
    /// The High-profile extension is read when the profile calls for it and at least its four
    /// fixed bytes are present; a record that ends after the PPSs has none (as older muxers
    /// write). Reserved bits are not checked; bytes after the record are ignored. Parameter set
    /// NAL unit types are not checked. The NAL units are views into `bytes`.
    /// - Throws: ``H264Error/Code/invalidDecoderConfiguration`` for a `configurationVersion`
    ///   other than 1, ``H264Error/Code/truncated`` when a count or parameter set runs past the
    ///   end, ``H264Error/Code/emptyNALUnit`` for a zero-length parameter set, and NAL header
    ///   errors.
    public init(parsing bytes: ArraySlice<UInt8>) throws(H264Error) {
        var cursor = Cursor(bytes: bytes)
        configurationVersion = try cursor.u8()
        guard configurationVersion == 1 else {
            throw H264Error.invalid(.invalidDecoderConfiguration, "configurationVersion \(configurationVersion), expected 1")
        }
        profileIndication = try cursor.u8()
        profileCompatibility = try cursor.u8()
        levelIndication = try cursor.u8()
        let lengthByte = try cursor.u8()
        // lengthSizeMinusOne 0, 1 or 3; 2 (three-byte lengths) does not exist.
        nalUnitLengthSize = try AVCC.LengthSize(byteCount: Int(lengthByte & 3) &+ 1)
        let spsCount = Int(try cursor.u8() & 0x1F)
        sequenceParameterSets = try cursor.parameterSets(spsCount)
        let ppsCount = Int(try cursor.u8())
        pictureParameterSets = try cursor.parameterSets(ppsCount)
        highProfileExtension = nil
        if Self.profileHasExtension(profileIndication) && cursor.remaining >= 4 {
            let chroma = try cursor.u8() & 3
            let luma = try cursor.u8() & 7
            let chromaDepth = try cursor.u8() & 7
            let extCount = Int(try cursor.u8())
            highProfileExtension = HighProfileExtension(
                chromaFormat: chroma, bitDepthLumaMinus8: luma, bitDepthChromaMinus8: chromaDepth,
                sequenceParameterSetExtensions: try cursor.parameterSets(extCount))
        }
    }

    /// Parses a record held in an array.
    public init(parsing bytes: [UInt8]) throws(H264Error) { try self.init(parsing: bytes[...]) }

    /// Reads the record's fields in order (counts are at most 255, so no loop is unbounded).
    private struct Cursor {
        let bytes: ArraySlice<UInt8>
        var position: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            position = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex &- position }

        mutating func u8() throws(H264Error) -> UInt8 {
            guard position < bytes.endIndex else { throw .truncated("avcC record ends early") }
            defer { position &+= 1 }
            return bytes[position]
        }

        mutating func parameterSets(_ count: Int) throws(H264Error) -> [NALUnit] {
            var out: [NALUnit] = []
            for _ in 0..<count {
                let length = Int(try u8()) << 8 | Int(try u8())
                guard length <= remaining else {
                    throw .truncated("avcC parameter set of \(length) bytes, \(remaining) left")
                }
                let start = position
                position &+= length  // <= endIndex, checked above
                out.append(try NALUnit(bytes[start..<position]))
            }
            return out
        }
    }

    // MARK: - Writing

    /// The record's bytes: the payload of an `avcC` box.
    /// - Complexity: O(total parameter set size).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = [configurationVersion, profileIndication, profileCompatibility, levelIndication,
                            0xFC | UInt8(truncatingIfNeeded: nalUnitLengthSize.byteCount &- 1),
                            0xE0 | UInt8(truncatingIfNeeded: min(sequenceParameterSets.count, 31))]
        Self.append(sequenceParameterSets.prefix(31), to: &out)
        out.append(UInt8(truncatingIfNeeded: min(pictureParameterSets.count, 255)))
        Self.append(pictureParameterSets.prefix(255), to: &out)
        if let ext = highProfileExtension {
            out.append(0xFC | ext.chromaFormat & 3)
            out.append(0xF8 | ext.bitDepthLumaMinus8 & 7)
            out.append(0xF8 | ext.bitDepthChromaMinus8 & 7)
            out.append(UInt8(truncatingIfNeeded: min(ext.sequenceParameterSetExtensions.count, 255)))
            Self.append(ext.sequenceParameterSetExtensions.prefix(255), to: &out)
        }
        return out
    }

    /// Appends parameter sets with 16-bit lengths (longer ones are cut to 65,535 bytes; the
    /// building initialiser never makes such a record).
    private static func append(_ units: ArraySlice<NALUnit>, to out: inout [UInt8]) {
        for unit in units {
            let bytes = unit.bytes.prefix(Int(UInt16.max))
            out.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
            out.append(UInt8(truncatingIfNeeded: bytes.count))
            out.append(contentsOf: bytes)
        }
    }
}
