extension ProfileLevel {
    /// A profile as RFC 6184 Table 5 (and RFC 7742 for WebRTC) groups `profile_idc` and the
    /// constraint flags for SDP offer/answer: two `profile-level-id`s name the same profile
    /// when they map to the same case, whatever their bytes.
    public enum SDPProfile: String, Hashable, Sendable, CaseIterable {
        /// `42` with `x1xx0000`, `4d` with `1xxx0000`, `58` with `11xx0000`.
        case constrainedBaseline
        /// `42` with `x0xx0000`, `58` with `10xx0000`.
        case baseline
        /// `4d` with `0x0x0000`.
        case main
        /// `58` with `00xx0000`.
        case extended
        /// `64` with `00000000`.
        case high
        /// `64` with `00001100` (H.264 A.2.4.2).
        case constrainedHigh
        /// `6e` with `00000000`.
        case high10
        /// `7a` with `00000000`.
        case high422
        /// `f4` with `00000000`.
        case high444
        /// `6e` with `00010000`.
        case high10Intra
        /// `7a` with `00010000`.
        case high422Intra
        /// `f4` with `00010000`.
        case high444Intra
        /// `2c` with `00010000`.
        case cavlc444Intra
    }

    /// The Table 5 profile these bytes name; nil for a combination the table does not list
    /// (such streams match only a `profile-level-id` with the same two bytes).
    public var sdpProfile: SDPProfile? {
        // Each pattern: the flags that must be set and those that must be clear.
        func matches(_ set: UInt8, clear: UInt8) -> Bool { constraintFlags & set == set && constraintFlags & clear == 0 }
        switch profileIDC {
        case 0x42:
            if matches(0x40, clear: 0x0f) { return .constrainedBaseline }
            if matches(0x00, clear: 0x4f) { return .baseline }
        case 0x4d:
            if matches(0x80, clear: 0x0f) { return .constrainedBaseline }
            if matches(0x00, clear: 0xaf) { return .main }
        case 0x58:
            if matches(0xc0, clear: 0x0f) { return .constrainedBaseline }
            if matches(0x80, clear: 0x4f) { return .baseline }
            if matches(0x00, clear: 0xcf) { return .extended }
        case 0x64:
            if constraintFlags == 0x00 { return .high }
            if constraintFlags == 0x0c { return .constrainedHigh }
        case 0x6e:
            if constraintFlags == 0x00 { return .high10 }
            if constraintFlags == 0x10 { return .high10Intra }
        case 0x7a:
            if constraintFlags == 0x00 { return .high422 }
            if constraintFlags == 0x10 { return .high422Intra }
        case 0xf4:
            if constraintFlags == 0x00 { return .high444 }
            if constraintFlags == 0x10 { return .high444Intra }
        case 0x2c:
            if constraintFlags == 0x10 { return .cavlc444Intra }
        default: break
        }
        return nil
    }

    /// Whether a stream fits a negotiated `profile-level-id`, and why not.
    public enum Compatibility: Hashable, Sendable, CustomStringConvertible {
        /// Same profile (Table 5), level at most the negotiated one.
        case compatible
        /// Same profile, a level above the negotiated one, allowed because both sides said
        /// `level-asymmetry-allowed=1` (RFC 6184 8.1): the negotiated level then bounds only
        /// what the other side sends.
        case compatibleByLevelAsymmetry(stream: Level, negotiated: Level)
        /// Another profile: the stream's bytes and the negotiated ones map to different Table 5
        /// profiles (or, outside the table, differ).
        case profileMismatch(stream: ProfileLevel, negotiated: ProfileLevel)
        /// Same profile, level above the negotiated one, and no level asymmetry.
        case levelTooHigh(stream: Level, negotiated: Level)

        /// True for ``compatible`` and ``compatibleByLevelAsymmetry(stream:negotiated:)``.
        public var isCompatible: Bool {
            switch self {
            case .compatible, .compatibleByLevelAsymmetry: return true
            case .profileMismatch, .levelTooHigh: return false
            }
        }

        /// The reason, one line.
        public var description: String {
            switch self {
            case .compatible: return "compatible"
            case .compatibleByLevelAsymmetry(let s, let n):
                return "level \(s) above the negotiated \(n), allowed by level-asymmetry-allowed"
            case .profileMismatch(let s, let n):
                return "profile \(s.profileName) (\(s.profileLevelID)) is not the negotiated \(n.profileName) (\(n.profileLevelID))"
            case .levelTooHigh(let s, let n):
                return "level \(s) above the negotiated \(n)"
            }
        }
    }

    /// True when `other` names the same profile: the same RFC 6184 Table 5 profile
    /// (``sdpProfile``), or, outside the table, the same `profile_idc` and constraint flags.
    public func hasSameProfile(as other: ProfileLevel) -> Bool {
        let mine = sdpProfile, theirs = other.sdpProfile
        return mine != nil || theirs != nil
            ? mine == theirs
            : profileIDC == other.profileIDC && constraintFlags == other.constraintFlags
    }

    /// Whether a stream with these bytes (from its SPS) fits a negotiated `profile-level-id`
    /// (RFC 6184 8.1 and 8.2.2, RFC 7742 6.2): the same profile by Table 5 (byte-equal
    /// `profile_idc` and flags outside the table), and a level no higher than the negotiated
    /// one unless `levelAsymmetryAllowed` (both sides' `level-asymmetry-allowed=1`).
    public func compatibility(withNegotiated negotiated: ProfileLevel, levelAsymmetryAllowed: Bool = false) -> Compatibility {
        guard hasSameProfile(as: negotiated) else { return .profileMismatch(stream: self, negotiated: negotiated) }
        guard level > negotiated.level else { return .compatible }
        return levelAsymmetryAllowed
            ? .compatibleByLevelAsymmetry(stream: level, negotiated: negotiated.level)
            : .levelTooHigh(stream: level, negotiated: negotiated.level)
    }
}
