/// `primary_pic_type` (ITU-T H.264 Table 7-5): the slice types an access unit's primary coded
/// picture may hold. Table 7-5 lives here, once.
public enum PrimaryPicType: UInt8, Hashable, Sendable, CaseIterable {
    /// 0: I.
    case i = 0
    /// 1: I, P.
    case iP = 1
    /// 2: I, P, B.
    case iPB = 2
    /// 3: SI.
    case si = 3
    /// 4: SI, SP.
    case siSP = 4
    /// 5: I, SI.
    case iSI = 5
    /// 6: I, SI, P, SP.
    case iSIPSP = 6
    /// 7: every slice type.
    case any = 7

    /// The slice kinds the type allows, as a bit set indexed by ``SliceType/Kind/rawValue``.
    @usableFromInline var allowedKinds: UInt8 {
        switch self {
        case .i: return 0b00100
        case .iP: return 0b00101
        case .iPB: return 0b00111
        case .si: return 0b10000
        case .siSP: return 0b11000
        case .iSI: return 0b10100
        case .iSIPSP: return 0b11101
        case .any: return 0b11111
        }
    }

    /// True when a primary picture of this type may hold slices of `kind`.
    @inlinable public func allows(_ kind: SliceType.Kind) -> Bool { allowedKinds & (1 << kind.rawValue) != 0 }

    /// The first type of Table 7-5 that allows every kind in `kinds` (``any`` for none).
    /// - Complexity: O(kinds).
    public init<S: Sequence>(allowing kinds: S) where S.Element == SliceType.Kind {
        var present: UInt8 = 0
        for kind in kinds { present |= 1 << kind.rawValue }
        self = present == 0 ? .any : (Self.allCases.first { $0.allowedKinds & present == present } ?? .any)
    }
}
