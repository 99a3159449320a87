/// The three bytes that name a stream's profile and level: `profile_idc`, the constraint-flags
/// byte and `level_idc`, the first three bytes of every sequence parameter set's RBSP.
///
/// The same bytes are written two ways for the outside world, and this type reads and writes
/// both:
/// - the RFC 6381 codec string of HLS, DASH and MSE (`avc1.64001f`, `avc3.42e01e`), see
///   ``codecString(sampleEntry:)`` and ``init(codecString:)``;
/// - the SDP `profile-level-id` of RFC 6184 8.1 (`42e01f`), see ``profileLevelID`` and
///   ``init(parsing:)``.
///
/// It also names the profile (``profileName``, ``sdpProfile``) and the level (``level``), and
/// decides whether a stream fits a negotiated `profile-level-id`
/// (``compatibility(withNegotiated:levelAsymmetryAllowed:)``).
///
/// ```swift
/// let pl = try ProfileLevel(sps: spsUnit)
/// pl.codecString()          // "avc1.42e01f"
/// pl.profileLevelID         // "42e01f"
/// pl.profileName            // "Constrained Baseline"
/// pl.level.name             // "3.1"
/// ```
///
/// A value is three bytes; parsing reads at most the first few characters past what the format
/// allows before refusing.
public struct ProfileLevel: Hashable, Sendable, CustomStringConvertible {
    /// `profile_idc`.
    public var profileIDC: UInt8
    /// `constraint_set0_flag` in the top bit down to `constraint_set5_flag`, then
    /// `reserved_zero_2bits` in the low two (the avcC record's `profile_compatibility`, RFC
    /// 6184's `profile-iop`).
    public var constraintFlags: UInt8
    /// `level_idc`.
    public var levelIDC: UInt8

    /// Creates the value from its three bytes.
    public init(profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.constraintFlags = constraintFlags
        self.levelIDC = levelIDC
    }

    /// Takes the first three RBSP bytes of a sequence parameter set (or subset SPS) NAL unit.
    /// - Throws: ``H264Error/Code/invalidArgument`` for another NAL unit type,
    ///   ``H264Error/Code/truncated`` when the SPS has fewer than three payload bytes.
    public init(sps: NALUnit) throws(H264Error) {
        guard sps.type == .sps || sps.type == .subsetSPS else {
            throw H264Error.invalid(.invalidArgument, "profile and level need an SPS, got NAL unit type \(sps.type)")
        }
        let rbsp = sps.rbsp
        guard rbsp.count >= 3 else { throw .truncated("SPS of \(rbsp.count) RBSP bytes has no level_idc") }
        let s = rbsp.startIndex
        self.init(profileIDC: rbsp[s], constraintFlags: rbsp[s + 1], levelIDC: rbsp[s + 2])
    }

    /// Takes `profile_idc`, the constraint flags and `level_idc` of a parsed SPS.
    public init(_ sps: SequenceParameterSet) {
        var flags: UInt8 = sps.reservedZero2Bits & 3
        for n in 0..<6 where sps.constraintSet(n) { flags |= 0x80 >> UInt8(n) }
        self.init(profileIDC: sps.profileIDC, constraintFlags: flags, levelIDC: sps.levelIDC)
    }

    /// `constraint_set<n>_flag` (n in 0...5); false for any other n.
    public func constraintSet(_ n: Int) -> Bool {
        n >= 0 && n < 6 && constraintFlags & (0x80 >> UInt8(n)) != 0
    }

    /// The six lowercase hexadecimal digits of ``profileLevelID``.
    public var description: String { profileLevelID }
}

// MARK: - Rendering and parsing

extension ProfileLevel {
    /// The sample entry type that begins an RFC 6381 codec string.
    public enum SampleEntry: String, Hashable, Sendable, CaseIterable {
        /// `avc1`: parameter sets only in the avcC record.
        case avc1
        /// `avc3`: parameter sets may also be in the samples.
        case avc3
    }

    /// The SDP `profile-level-id` (RFC 6184 8.1): six lowercase hexadecimal digits, `42e01f`.
    public var profileLevelID: String {
        String(decoding: Self.hex(profileIDC) + Self.hex(constraintFlags) + Self.hex(levelIDC), as: UTF8.self)
    }

    /// The RFC 6381 codec string, `avc1.PPCCLL` (lowercase hexadecimal), as HLS `CODECS`,
    /// DASH `@codecs` and MSE `isTypeSupported` take it.
    public func codecString(sampleEntry: SampleEntry = .avc1) -> String {
        sampleEntry.rawValue + "." + profileLevelID
    }

    /// Parses a `profile-level-id`: exactly six hexadecimal digits, either case.
    /// - Throws: ``H264Error/Code/invalidArgument`` for anything else.
    public init<S: StringProtocol>(parsing text: S) throws(H264Error) {
        guard let value = Self.sixHexDigits(text.utf8) else {
            throw H264Error.invalid(.invalidArgument, "profile-level-id '\(text.prefix(32))' is not 6 hexadecimal digits")
        }
        self = value
    }

    /// Parses an RFC 6381 codec string: `avc1.` or `avc3.` followed by exactly six hexadecimal
    /// digits (either case). The legacy decimal form (`avc1.66.30`) and other codecs are refused.
    /// - Returns: the profile and level; ``sampleEntry(ofCodecString:)`` gives the entry type.
    /// - Throws: ``H264Error/Code/invalidArgument`` for anything else.
    public init<S: StringProtocol>(codecString text: S) throws(H264Error) {
        guard Self.sampleEntry(ofCodecString: text) != nil else {
            throw H264Error.invalid(.invalidArgument, "codec string '\(text.prefix(32))' does not begin with avc1. or avc3.")
        }
        guard let value = Self.sixHexDigits(text.utf8.dropFirst(5)) else {
            throw H264Error.invalid(.invalidArgument, "codec string '\(text.prefix(32))' is not avc1.PPCCLL (6 hexadecimal digits)")
        }
        self = value
    }

    /// The sample entry a codec string names (`avc1` or `avc3`, followed by a dot), nil for any
    /// other string.
    public static func sampleEntry<S: StringProtocol>(ofCodecString text: S) -> SampleEntry? {
        let prefix = Array(text.utf8.prefix(5))
        guard prefix.count == 5, prefix[4] == UInt8(ascii: ".") else { return nil }
        return SampleEntry(rawValue: String(decoding: prefix.prefix(4), as: UTF8.self))
    }

    private static func sixHexDigits<C: Collection<UInt8>>(_ bytes: C) -> ProfileLevel? {
        var value: UInt32 = 0
        var digits = 0
        for ch in bytes {
            let v: UInt8
            switch ch {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = ch - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = ch - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = ch - UInt8(ascii: "A") + 10
            default: return nil
            }
            digits += 1
            guard digits <= 6 else { return nil }
            value = value << 4 | UInt32(v)
        }
        guard digits == 6 else { return nil }
        return ProfileLevel(profileIDC: UInt8(truncatingIfNeeded: value >> 16),
                            constraintFlags: UInt8(truncatingIfNeeded: value >> 8),
                            levelIDC: UInt8(truncatingIfNeeded: value))
    }

    private static func hex(_ b: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(b >> 4)], digits[Int(b & 15)]]
    }
}
