/// `slice_type` (ITU-T H.264 Table 7-6): a slice's coding type, and whether every slice of
/// the picture has it (values 5...9).
///
/// A struct over the coded value, as ``NALUnitType`` is: every value 0...9 is a ``kind`` with
/// or without ``allSlicesSame``, and values above 9 cannot be made.
public struct SliceType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The coding type of a slice: `slice_type % 5`.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable {
        /// P (0).
        case p = 0
        /// B (1).
        case b = 1
        /// I (2).
        case i = 2
        /// SP (3).
        case sp = 3
        /// SI (4).
        case si = 4
    }

    /// The coded value, 0...9.
    public let rawValue: UInt8

    /// The slice type coded as `rawValue`; nil above 9.
    @inlinable public init?(rawValue: UInt8) {
        guard rawValue <= 9 else { return nil }
        self.rawValue = rawValue
    }

    /// The slice type coded as `rawValue`, known to be 0...9 (read back from where a slice type
    /// was stored).
    @inlinable init(uncheckedRawValue rawValue: UInt8) {
        assert(rawValue <= 9)
        self.rawValue = rawValue
    }

    /// The slice type of `kind`, plus 5 when every slice of the picture has that kind.
    @inlinable public init(_ kind: Kind, allSlicesSame: Bool = false) {
        rawValue = kind.rawValue &+ (allSlicesSame ? 5 : 0)  // <= 9
    }

    /// `slice_type % 5`.
    @inlinable public var kind: Kind {
        switch rawValue % 5 {
        case 0: return .p
        case 1: return .b
        case 2: return .i
        case 3: return .sp
        default: return .si
        }
    }

    /// Values 5...9: every slice of the picture has this ``kind``.
    @inlinable public var allSlicesSame: Bool { rawValue >= 5 }

    /// An I or SI slice: the only kinds an IDR picture holds.
    @inlinable public var isIntra: Bool { kind == .i || kind == .si }

    public static let p = SliceType(.p)
    public static let b = SliceType(.b)
    public static let i = SliceType(.i)
    public static let sp = SliceType(.sp)
    public static let si = SliceType(.si)

    public var description: String {
        let names = ["P", "B", "I", "SP", "SI"]
        return "\(rawValue)(\(names[Int(kind.rawValue)])\(allSlicesSame ? ", all" : ""))"
    }
}
