/// `nal_unit_type`, ITU-T H.264 Table 7-1.
///
/// A struct rather than an enum: every value 0...31 is representable, and the named constants
/// cover the ones the specification defines.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 5-bit value.
    public let rawValue: UInt8

    /// Creates a type from its 5-bit value (higher bits are dropped).
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    @inlinable public static var unspecified: NALUnitType { NALUnitType(rawValue: 0) }
    /// Coded slice of a non-IDR picture.
    @inlinable public static var slice: NALUnitType { NALUnitType(rawValue: 1) }
    /// Coded slice data partition A.
    @inlinable public static var sliceDataPartitionA: NALUnitType { NALUnitType(rawValue: 2) }
    /// Coded slice data partition B.
    @inlinable public static var sliceDataPartitionB: NALUnitType { NALUnitType(rawValue: 3) }
    /// Coded slice data partition C.
    @inlinable public static var sliceDataPartitionC: NALUnitType { NALUnitType(rawValue: 4) }
    /// Coded slice of an IDR picture.
    @inlinable public static var idrSlice: NALUnitType { NALUnitType(rawValue: 5) }
    /// Supplemental enhancement information.
    @inlinable public static var sei: NALUnitType { NALUnitType(rawValue: 6) }
    /// Sequence parameter set.
    @inlinable public static var sps: NALUnitType { NALUnitType(rawValue: 7) }
    /// Picture parameter set.
    @inlinable public static var pps: NALUnitType { NALUnitType(rawValue: 8) }
    /// Access unit delimiter.
    @inlinable public static var accessUnitDelimiter: NALUnitType { NALUnitType(rawValue: 9) }
    /// End of sequence.
    @inlinable public static var endOfSequence: NALUnitType { NALUnitType(rawValue: 10) }
    /// End of stream.
    @inlinable public static var endOfStream: NALUnitType { NALUnitType(rawValue: 11) }
    /// Filler data.
    @inlinable public static var fillerData: NALUnitType { NALUnitType(rawValue: 12) }
    /// Sequence parameter set extension.
    @inlinable public static var spsExtension: NALUnitType { NALUnitType(rawValue: 13) }
    /// Prefix NAL unit (SVC/MVC).
    @inlinable public static var prefix: NALUnitType { NALUnitType(rawValue: 14) }
    /// Subset sequence parameter set.
    @inlinable public static var subsetSPS: NALUnitType { NALUnitType(rawValue: 15) }
    /// Depth parameter set.
    @inlinable public static var depthParameterSet: NALUnitType { NALUnitType(rawValue: 16) }
    /// Reserved (17): like the parameter sets, starts a new access unit after a VCL NAL unit (7.4.1.2.3).
    @inlinable public static var reserved17: NALUnitType { NALUnitType(rawValue: 17) }
    /// Reserved (18): like the parameter sets, starts a new access unit after a VCL NAL unit (7.4.1.2.3).
    @inlinable public static var reserved18: NALUnitType { NALUnitType(rawValue: 18) }
    /// Coded slice of an auxiliary coded picture without partitioning.
    @inlinable public static var auxiliarySlice: NALUnitType { NALUnitType(rawValue: 19) }
    /// Coded slice extension (SVC/MVC).
    @inlinable public static var sliceExtension: NALUnitType { NALUnitType(rawValue: 20) }
    /// Coded slice extension for a depth view component or a 3D-AVC texture view component.
    @inlinable public static var sliceExtensionDepth: NALUnitType { NALUnitType(rawValue: 21) }

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
