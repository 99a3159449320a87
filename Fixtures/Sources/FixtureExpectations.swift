/// What a parser must report for a fixture that is unusual or deliberately broken (the
/// manifest's `expect` object). Every property has a neutral default for ordinary fixtures.
public struct FixtureExpectations: Sendable, Hashable, Decodable {
    /// The stream refers to a PPS it never carries.
    public let missingPPS: Bool
    /// The stream ends in the middle of a NAL unit.
    public let truncated: Bool
    /// For a truncated stream: the `nal_unit_type` of the cut NAL unit.
    public let truncatedNALType: UInt8?
    /// For a truncated stream: the size of the cut NAL unit as it remains in the file.
    public let truncatedNALSize: Int?
    /// Bytes before the first start code (an Annex B parser must skip or reject them).
    public let leadingGarbageBytes: Int
    /// Zero bytes after every NAL unit, before the next start code (`trailing_zero_8bits`).
    public let trailingZeroBytesPerNAL: Int
    /// `cabac_zero_word`s appended to every slice NAL unit.
    public let cabacZeroWordsPerSlice: Int
    /// The NAL units every slice NAL unit ends with, in hex.
    public let sliceNALSuffix: [UInt8]?
    /// The fixture whose NAL units this one must yield, byte for byte.
    public let sameNALUnitsAs: String?
    /// The fixture whose decoded pictures this one must equal.
    public let samePicturesAs: String?
    /// For a fixture whose facts could not be measured on the broken stream: the fixture whose
    /// SPS they were measured on.
    public let spsFactsFrom: String?
    /// NAL unit types removed when converting to AVCC (parameter sets go to the
    /// configuration record).
    public let removedNALTypes: [UInt8]
    /// The index among the stream's NAL units of a crafted SEI NAL unit.
    public let craftedSEINALIndex: Int?
    /// The crafted SEI NAL unit as carried (with emulation-prevention bytes).
    public let craftedSEINAL: [UInt8]?
    /// The crafted SEI NAL unit's header byte and RBSP (emulation prevention removed).
    public let craftedSEIRBSP: [UInt8]?
    /// Emulation-prevention bytes in the crafted SEI NAL unit.
    public let craftedSEIEmulationPreventionBytes: Int?
    /// The `uuid_iso_iec_11578` of the crafted user-data SEI.
    public let userDataUnregisteredUUID: [UInt8]?
    /// The `user_data_payload_byte`s of the crafted user-data SEI.
    public let userDataUnregisteredPayload: [UInt8]?

    private enum CodingKeys: String, CodingKey {
        case missingPPS = "missing_pps"
        case truncated
        case truncatedNALType = "truncated_nal_type"
        case truncatedNALSize = "truncated_nal_size"
        case leadingGarbageBytes = "leading_garbage_bytes"
        case trailingZeroBytesPerNAL = "trailing_zero_bytes_per_nal"
        case cabacZeroWordsPerSlice = "cabac_zero_words_per_slice"
        case sliceNALSuffix = "slice_nal_suffix_hex"
        case sameNALUnitsAs = "same_nal_units_as"
        case samePicturesAs = "same_pictures_as"
        case spsFactsFrom = "sps_facts_from"
        case removedNALTypes = "removed_nal_types"
        case craftedSEINALIndex = "crafted_sei_nal_index"
        case craftedSEINAL = "crafted_sei_nal_hex"
        case craftedSEIRBSP = "crafted_sei_rbsp_hex"
        case craftedSEIEmulationPreventionBytes = "crafted_sei_emulation_prevention_bytes"
        case userDataUnregisteredUUID = "user_data_unregistered_uuid_hex"
        case userDataUnregisteredPayload = "user_data_unregistered_payload_hex"
    }

    /// Decodes the manifest's `expect` object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        missingPPS = try c.decodeIfPresent(Bool.self, forKey: .missingPPS) ?? false
        truncated = try c.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
        truncatedNALType = try c.decodeIfPresent(UInt8.self, forKey: .truncatedNALType)
        truncatedNALSize = try c.decodeIfPresent(Int.self, forKey: .truncatedNALSize)
        leadingGarbageBytes = try c.decodeIfPresent(Int.self, forKey: .leadingGarbageBytes) ?? 0
        trailingZeroBytesPerNAL = try c.decodeIfPresent(Int.self, forKey: .trailingZeroBytesPerNAL) ?? 0
        cabacZeroWordsPerSlice = try c.decodeIfPresent(Int.self, forKey: .cabacZeroWordsPerSlice) ?? 0
        sliceNALSuffix = try Self.hex(c, .sliceNALSuffix)
        sameNALUnitsAs = try c.decodeIfPresent(String.self, forKey: .sameNALUnitsAs)
        samePicturesAs = try c.decodeIfPresent(String.self, forKey: .samePicturesAs)
        spsFactsFrom = try c.decodeIfPresent(String.self, forKey: .spsFactsFrom)
        removedNALTypes = try c.decodeIfPresent([UInt8].self, forKey: .removedNALTypes) ?? []
        craftedSEINALIndex = try c.decodeIfPresent(Int.self, forKey: .craftedSEINALIndex)
        craftedSEINAL = try Self.hex(c, .craftedSEINAL)
        craftedSEIRBSP = try Self.hex(c, .craftedSEIRBSP)
        craftedSEIEmulationPreventionBytes = try c.decodeIfPresent(Int.self, forKey: .craftedSEIEmulationPreventionBytes)
        userDataUnregisteredUUID = try Self.hex(c, .userDataUnregisteredUUID)
        userDataUnregisteredPayload = try Self.hex(c, .userDataUnregisteredPayload)
    }

    private static func hex(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [UInt8]? {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "odd number of hex digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not hex: \(text)")
            }
            bytes.append(byte)
            i += 2
        }
        return bytes
    }
}
