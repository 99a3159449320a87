/// `nal_unit_type`, ITU-T H.264 Table 7-1.
///
/// A struct rather than an enum: every value 0...31 is representable, and the named constants
/// cover the ones the specification defines.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 5-bit value.
    public let rawValue: UInt8

    /// Creates a type from its 5-bit value (higher bits are dropped).
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    public static let unspecified = NALUnitType(rawValue: 0)
    /// Coded slice of a non-IDR picture.
    public static let slice = NALUnitType(rawValue: 1)
    /// Coded slice data partition A.
    public static let sliceDataPartitionA = NALUnitType(rawValue: 2)
    /// Coded slice data partition B.
    public static let sliceDataPartitionB = NALUnitType(rawValue: 3)
    /// Coded slice data partition C.
    public static let sliceDataPartitionC = NALUnitType(rawValue: 4)
    /// Coded slice of an IDR picture.
    public static let idrSlice = NALUnitType(rawValue: 5)
    /// Supplemental enhancement information.
    public static let sei = NALUnitType(rawValue: 6)
    /// Sequence parameter set.
    public static let sps = NALUnitType(rawValue: 7)
    /// Picture parameter set.
    public static let pps = NALUnitType(rawValue: 8)
    /// Access unit delimiter.
    public static let accessUnitDelimiter = NALUnitType(rawValue: 9)
    /// End of sequence.
    public static let endOfSequence = NALUnitType(rawValue: 10)
    /// End of stream.
    public static let endOfStream = NALUnitType(rawValue: 11)
    /// Filler data.
    public static let fillerData = NALUnitType(rawValue: 12)
    /// Sequence parameter set extension.
    public static let spsExtension = NALUnitType(rawValue: 13)
    /// Prefix NAL unit (SVC/MVC).
    public static let prefix = NALUnitType(rawValue: 14)
    /// Subset sequence parameter set.
    public static let subsetSPS = NALUnitType(rawValue: 15)
    /// Depth parameter set.
    public static let depthParameterSet = NALUnitType(rawValue: 16)
    /// Reserved (17): like the parameter sets, starts a new access unit after a VCL NAL unit (7.4.1.2.3).
    public static let reserved17 = NALUnitType(rawValue: 17)
    /// Reserved (18): like the parameter sets, starts a new access unit after a VCL NAL unit (7.4.1.2.3).
    public static let reserved18 = NALUnitType(rawValue: 18)
    /// Coded slice of an auxiliary coded picture without partitioning.
    public static let auxiliarySlice = NALUnitType(rawValue: 19)
    /// Coded slice extension (SVC/MVC).
    public static let sliceExtension = NALUnitType(rawValue: 20)
    /// Coded slice extension for a depth view component or a 3D-AVC texture view component.
    public static let sliceExtensionDepth = NALUnitType(rawValue: 21)

    /// The name of Table 7-1.
    public var name: String {
        switch rawValue {
        case 0: return "Unspecified"
        case 1: return "Coded slice of a non-IDR picture"
        case 2: return "Coded slice data partition A"
        case 3: return "Coded slice data partition B"
        case 4: return "Coded slice data partition C"
        case 5: return "Coded slice of an IDR picture"
        case 6: return "Supplemental enhancement information (SEI)"
        case 7: return "Sequence parameter set"
        case 8: return "Picture parameter set"
        case 9: return "Access unit delimiter"
        case 10: return "End of sequence"
        case 11: return "End of stream"
        case 12: return "Filler data"
        case 13: return "Sequence parameter set extension"
        case 14: return "Prefix NAL unit"
        case 15: return "Subset sequence parameter set"
        case 16: return "Depth parameter set"
        case 17, 18: return "Reserved"
        case 19: return "Coded slice of an auxiliary coded picture without partitioning"
        case 20: return "Coded slice extension"
        case 21: return "Coded slice extension for a depth view component or a 3D-AVC texture view component"
        case 22, 23: return "Reserved"
        default: return "Unspecified"
        }
    }

    /// A short name for tables: `SPS`, `PPS`, `IDR`, `SEI`, ...
    public var shortName: String {
        switch rawValue {
        case 1: return "slice"
        case 2: return "DPA"
        case 3: return "DPB"
        case 4: return "DPC"
        case 5: return "IDR"
        case 6: return "SEI"
        case 7: return "SPS"
        case 8: return "PPS"
        case 9: return "AUD"
        case 10: return "EOSeq"
        case 11: return "EOStream"
        case 12: return "filler"
        case 13: return "SPSExt"
        case 14: return "prefix"
        case 15: return "subsetSPS"
        case 16: return "DPS"
        case 19: return "aux"
        case 20: return "sliceExt"
        case 21: return "sliceExt3D"
        default: return "type\(rawValue)"
        }
    }

    /// Coded slice (or partition) of the primary picture: types 1 to 5 (the VCL NAL units of 7.4.1.2.3).
    @inlinable public var isVCL: Bool { rawValue >= 1 && rawValue <= 5 }

    /// Types 14, 20 and 21 carry a three-byte NAL unit header extension (7.3.1).
    @inlinable public var hasHeaderExtension: Bool { rawValue == 14 || rawValue == 20 || rawValue == 21 }

    /// SPS, PPS, subset SPS or SPS extension.
    @inlinable public var isParameterSet: Bool { rawValue == 7 || rawValue == 8 || rawValue == 13 || rawValue == 15 }

    public var description: String { "\(rawValue)(\(shortName))" }

    public static func < (lhs: NALUnitType, rhs: NALUnitType) -> Bool { lhs.rawValue < rhs.rawValue }
}
