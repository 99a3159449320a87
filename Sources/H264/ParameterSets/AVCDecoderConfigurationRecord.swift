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
/// One description (``code(_:context:)``) reads and writes the record, as the syntax
/// structures of the RBSP do.
///
/// The API follows CoreMedia's H.264 format description: ``parameterSet(at:)`` counts the
/// SPSs first, then the PPSs; ``parameterSetCount``; ``nalUnitLengthSize``;
/// ``init(parameterSets:lengthSize:)``.
public struct AVCDecoderConfigurationRecord: SyntaxStructure, Hashable {
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
        let parsed = try SequenceParameterSet(rbsp: first.rbsp)
        profileIndication = parsed.profileIDC
        // The byte after profile_idc: constraint_set0..5_flag, then reserved_zero_2bits.
        var compatibility = parsed.reservedZero2Bits & 3
        for (i, flag) in parsed.constraintSetFlags.prefix(6).enumerated() where flag { compatibility |= 0x80 >> UInt8(i) }
        profileCompatibility = compatibility
        levelIndication = parsed.levelIDC
        nalUnitLengthSize = lengthSize
        sequenceParameterSets = sps
        pictureParameterSets = pps
        if Self.profileHasExtension(parsed.profileIDC) {
            highProfileExtension = HighProfileExtension(
                chromaFormat: parsed.chromaFormatIDC & 3,
                bitDepthLumaMinus8: parsed.bitDepthLumaMinus8 & 7,
                bitDepthChromaMinus8: parsed.bitDepthChromaMinus8 & 7,
                sequenceParameterSetExtensions: ext)
        } else {
            highProfileExtension = nil
        }
    }

    // MARK: - Parsing and writing

    /// A record with no parameter sets (profile, level and compatibility 0, four-byte lengths):
    /// the value a reader starts from.
    public init() {
        profileIndication = 0
        profileCompatibility = 0
        levelIndication = 0
        nalUnitLengthSize = .four
        sequenceParameterSets = []
        pictureParameterSets = []
        highProfileExtension = nil
    }

    /// Parses a record (an `avcC` box payload).
    ///
    /// The High-profile extension is read when the profile calls for it and at least its four
    /// fixed bytes are present; a record that ends after the PPSs has none (as older muxers
    /// write). Reserved bits are not checked; bytes after the record are ignored. Parameter set
    /// NAL unit types are not checked.
    /// - Throws: ``H264Error/Code/invalidDecoderConfiguration`` for a `configurationVersion`
    ///   other than 1, ``H264Error/Code/truncated`` when a count or parameter set runs past the
    ///   end, ``H264Error/Code/emptyNALUnit`` for a zero-length parameter set, and NAL header
    ///   errors.
    /// - Complexity: O(record size).
    public init(parsing bytes: ArraySlice<UInt8>) throws(H264Error) {
        self.init()
        var r = SyntaxReader(bytes)
        try code(&r, context: .empty)
    }

    /// Parses a record held in an array.
    public init(parsing bytes: [UInt8]) throws(H264Error) { try self.init(parsing: bytes[...]) }

    /// The record's bytes: the payload of an `avcC` box.
    /// - Throws: ``H264Error/Code/limitExceeded`` for more than 31 SPSs or 255 PPSs or SPS
    ///   extensions, ``H264Error/Code/nalUnitTooLarge`` for a parameter set over 65,535 bytes:
    ///   the record's fields cannot count them (nothing is cut).
    /// - Complexity: O(total parameter set size).
    public func serialized() throws(H264Error) -> [UInt8] {
        var w = SyntaxWriter()
        var copy = self
        try copy.code(&w, context: .empty)
        return w.writer.bytes
    }

    /// The record's layout (ISO/IEC 14496-15 5.3.3.1), read or written. The context is not
    /// used: the record depends on nothing outside it.
    /// - Throws: see ``init(parsing:)`` and ``serialized()``.
    public mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error) {
        try c.u(8, &configurationVersion, "configurationVersion")
        guard configurationVersion == 1 else {
            throw H264Error.invalid(.invalidDecoderConfiguration, "configurationVersion \(configurationVersion), expected 1")
        }
        try c.u(8, &profileIndication, "AVCProfileIndication")
        try c.u(8, &profileCompatibility, "profile_compatibility")
        try c.u(8, &levelIndication, "AVCLevelIndication")
        try Self.reserved(&c, bits: 6)
        var lengthSizeMinusOne = UInt8(truncatingIfNeeded: nalUnitLengthSize.byteCount &- 1)  // 0, 1 or 3
        try c.u(2, &lengthSizeMinusOne, "lengthSizeMinusOne")
        // 2 (three-byte lengths) does not exist.
        if c.isReading { nalUnitLengthSize = try AVCC.LengthSize(byteCount: Int(lengthSizeMinusOne) &+ 1) }
        try Self.reserved(&c, bits: 3)
        try Self.codeParameterSets(&c, &sequenceParameterSets, countBits: 5, "numOfSequenceParameterSets",
                                   "sequenceParameterSetLength")
        try Self.codeParameterSets(&c, &pictureParameterSets, countBits: 8, "numOfPictureParameterSets",
                                   "pictureParameterSetLength")
        // Read when the profile calls for it and its four fixed bytes are there.
        let hasExtension = c.isReading
            ? Self.profileHasExtension(profileIndication) && (try? c.peekBits(32)) != nil
            : highProfileExtension != nil
        guard hasExtension else {
            if c.isReading { highProfileExtension = nil }
            return
        }
        var ext = highProfileExtension ?? HighProfileExtension(chromaFormat: 0, bitDepthLumaMinus8: 0, bitDepthChromaMinus8: 0)
        try Self.reserved(&c, bits: 6)
        try c.u(2, &ext.chromaFormat, "chroma_format")
        try Self.reserved(&c, bits: 5)
        try c.u(3, &ext.bitDepthLumaMinus8, "bit_depth_luma_minus8")
        try Self.reserved(&c, bits: 5)
        try c.u(3, &ext.bitDepthChromaMinus8, "bit_depth_chroma_minus8")
        try Self.codeParameterSets(&c, &ext.sequenceParameterSetExtensions, countBits: 8, "numOfSequenceParameterSetExt",
                                   "sequenceParameterSetExtLength")
        highProfileExtension = ext
    }

    /// Reserved bits, all 1: written so, not checked when read.
    private static func reserved<C: SyntaxCoder>(_ c: inout C, bits: Int) throws(H264Error) {
        var ones = UInt8(truncatingIfNeeded: (1 << bits) &- 1)  // bits <= 6
        try c.u(bits, &ones, "reserved")
    }

    /// A count, then each NAL unit with a 16-bit length.
    /// - Throws: ``H264Error/Code/limitExceeded`` when writing more units than `countBits`
    ///   count, ``H264Error/Code/nalUnitTooLarge`` for a unit over 65,535 bytes.
    private static func codeParameterSets<C: SyntaxCoder>(
        _ c: inout C, _ units: inout [NALUnit], countBits: Int, _ countName: StaticString, _ lengthName: StaticString
    ) throws(H264Error) {
        let maxCount = (1 << countBits) &- 1  // 31 or 255
        guard c.isReading || units.count <= maxCount else {
            throw H264Error.invalid(.limitExceeded, "\(units.count) units for \(countName); avcC holds \(maxCount)")
        }
        var count = UInt8(truncatingIfNeeded: units.count)  // <= 255, checked above
        try c.u(countBits, &count, SyntaxName(countName))
        if c.isReading { units = [] }
        for i in 0..<Int(count) {
            var bytes: [UInt8] = c.isReading ? [] : Array(units[i].bytes)
            guard bytes.count <= Int(UInt16.max) else {
                throw H264Error.invalid(.nalUnitTooLarge, "parameter set of \(bytes.count) bytes does not fit a 16-bit length")
            }
            var length = UInt16(truncatingIfNeeded: bytes.count)  // checked above
            try c.u(16, &length, SyntaxName(lengthName))
            try c.bytes(&bytes, count: Int(length), "nalUnit")
            if c.isReading { units.append(try NALUnit(bytes)) }
        }
    }
}
