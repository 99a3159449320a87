import H264

// TODO(integration): replace with the core `AVCDecoderConfigurationRecord` parser from the AVCC
// module. This is only the structural walk FLV needs (ISO/IEC 14496-15 5.3.3.1): version,
// NAL length size, and the SPS and PPS NAL units, so that a sequence header that is not an avcC
// record is rejected and SPS/PPS can be put back before keyframes.

/// The parts of an avcC record that FLV reading needs.
struct DecoderConfigurationBytes: Sendable {
    /// `lengthSizeMinusOne + 1`: 1, 2 or 4.
    var lengthSize: Int
    /// The sequence parameter sets, as NAL units.
    var sequenceParameterSets: [NALUnit]
    /// The picture parameter sets, as NAL units.
    var pictureParameterSets: [NALUnit]

    /// Walks an avcC record.
    /// - Throws: ``H264Error/Code/invalidDecoderConfiguration`` when `configurationVersion` is
    ///   not 1 (Annex-B bytes put where the record belongs start with 0), when a length runs
    ///   past the end, when the NAL length size is 3, or when a listed parameter set is not an
    ///   SPS/PPS NAL unit.
    init(_ bytes: ArraySlice<UInt8>) throws(H264Error) {
        func bad(_ why: String) -> H264Error { H264Error.invalid(.invalidDecoderConfiguration, why) }
        var c = ByteCursor(bytes)
        guard let version = c.peekUInt8() else { throw bad("empty AVC sequence header") }
        guard version == 1 else {
            let annexB = bytes.starts(with: [0, 0, 1] as [UInt8]) || bytes.starts(with: [0, 0, 0, 1] as [UInt8])
            throw bad("configurationVersion is \(version), not 1" + (annexB ? ": the sequence header holds Annex-B bytes, not an avcC record" : ""))
        }
        do throws(H264Error) {
            try c.skip(4, "avcC header")  // configurationVersion, profile, compatibility, level
            let lengthByte = try c.readUInt8("lengthSizeMinusOne")
            lengthSize = Int(lengthByte & 3) &+ 1  // 1...4
            guard lengthSize != 3 else { throw bad("lengthSizeMinusOne is 2") }
            let spsCount = Int(try c.readUInt8("numOfSequenceParameterSets") & 0x1F)
            sequenceParameterSets = try Self.units(&c, count: spsCount, type: .sps)
            let ppsCount = Int(try c.readUInt8("numOfPictureParameterSets"))
            pictureParameterSets = try Self.units(&c, count: ppsCount, type: .pps)
            // Trailing bytes (the High-profile chroma/bit-depth extension) are allowed.
        } catch where error.code == .truncated {
            throw bad("avcC record cut short: \(error.reason)")
        } catch where error.code == .emptyNALUnit || error.code == .forbiddenBitSet {
            throw bad("avcC parameter set: \(error.reason)")
        }
    }

    private static func units(_ c: inout ByteCursor, count: Int, type: NALUnitType) throws(H264Error) -> [NALUnit] {
        var out: [NALUnit] = []
        for _ in 0..<count {  // count <= 255
            let n = Int(try c.readUInt16("parameter set length"))
            let unit = try NALUnit(try c.readBytes(n, "parameter set NAL unit"))
            guard unit.type == type else {
                throw H264Error.invalid(.invalidDecoderConfiguration, "avcC lists a \(unit.type) NAL unit among the \(type)s")
            }
            out.append(unit)
        }
        return out
    }
}

// TODO(integration): replace with the AVCC module's length-prefixed NAL unit reader.

/// Splits AVCC-framed bytes (each NAL unit preceded by a big-endian length of `lengthSize`
/// bytes) into NAL units.
/// - Throws: ``H264Error/Code/lengthPastEnd`` when a length runs past the end,
///   ``H264Error/Code/truncated`` for a partial length field, NAL header errors.
/// - Complexity: O(number of NAL units); nothing is copied.
func lengthPrefixedUnits(_ bytes: ArraySlice<UInt8>, lengthSize: Int) throws(H264Error) -> [NALUnit] {
    var c = ByteCursor(bytes)
    var units: [NALUnit] = []
    while !c.isAtEnd {
        let n = Int(try c.readUInt(lengthSize, "NAL unit length"))
        guard n <= c.count else {
            throw H264Error.invalid(.lengthPastEnd, "NAL unit length \(n) runs past the end (\(c.count) bytes left)")
        }
        units.append(try NALUnit(try c.readBytes(n)))
    }
    return units
}
