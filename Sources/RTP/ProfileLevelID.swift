import H264

/// The SDP `profile-level-id` parameter (RFC 6184 8.1): `profile_idc`, the byte of
/// `constraint_set0_flag`...`constraint_set5_flag` and `reserved_zero_2bits`, and `level_idc`,
/// written as six hexadecimal digits (`42e01f`).
public struct ProfileLevelID: Hashable, Sendable, CustomStringConvertible {
    /// `profile_idc`.
    public var profileIDC: UInt8
    /// `constraint_set0_flag` in the top bit down to `reserved_zero_2bits` in the low two.
    public var constraintFlags: UInt8
    /// `level_idc`.
    public var levelIDC: UInt8

    /// Creates the parameter from its three bytes.
    public init(profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.constraintFlags = constraintFlags
        self.levelIDC = levelIDC
    }

    /// Takes the first three RBSP bytes of a sequence parameter set (or subset SPS).
    /// - Throws: `H264Error.Code.invalidArgument` for another NAL unit type,
    ///   `H264Error.Code.truncated` when the SPS has fewer than three payload bytes.
    public init(sps: NALUnit) throws(H264Error) {
        guard sps.type == .sps || sps.type == .subsetSPS else {
            throw H264Error.invalid(.invalidArgument, "profile-level-id needs an SPS, got NAL unit type \(sps.type)")
        }
        let rbsp = sps.rbsp
        guard rbsp.count >= 3 else { throw .truncated("SPS of \(rbsp.count) RBSP bytes has no level_idc") }
        let s = rbsp.startIndex
        self.init(profileIDC: rbsp[s], constraintFlags: rbsp[s + 1], levelIDC: rbsp[s + 2])
    }

    /// Parses six hexadecimal digits (either case).
    /// - Throws: `H264Error.Code.invalidArgument` for anything else.
    public init<S: StringProtocol>(parsing text: S) throws(H264Error) {
        var value: UInt32 = 0
        var digits = 0
        for ch in text.utf8 {
            let v: UInt8
            switch ch {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = ch - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = ch - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = ch - UInt8(ascii: "A") + 10
            default: throw H264Error.invalid(.invalidArgument, "profile-level-id '\(text)' is not hexadecimal")
            }
            digits += 1
            guard digits <= 6 else { break }
            value = value << 4 | UInt32(v)
        }
        guard digits == 6 else { throw H264Error.invalid(.invalidArgument, "profile-level-id '\(text)' is not 6 hex digits") }
        self.init(profileIDC: UInt8(truncatingIfNeeded: value >> 16), constraintFlags: UInt8(truncatingIfNeeded: value >> 8),
                  levelIDC: UInt8(truncatingIfNeeded: value))
    }

    /// Six lowercase hexadecimal digits.
    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in [profileIDC, constraintFlags, levelIDC] {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
