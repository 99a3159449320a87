import H264

/// The SDP `profile-level-id` parameter (RFC 6184 8.1): the H264 module's `ProfileLevel`,
/// whose `init(parsing:)` and `profileLevelID` read and write its six hexadecimal digits
/// (`42e01f`), whose `init(sps:)` takes it from an SPS, and whose
/// `compatibility(withNegotiated:levelAsymmetryAllowed:)` decides whether a stream fits a
/// negotiated one (RFC 6184 Table 5, `level-asymmetry-allowed`).
@available(*, deprecated, renamed: "ProfileLevel", message: "the SDP profile-level-id is the core's ProfileLevel")
public typealias ProfileLevelID = ProfileLevel
