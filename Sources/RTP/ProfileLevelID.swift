import H264

/// The SDP `profile-level-id` parameter (RFC 6184 8.1): the core's ``H264/ProfileLevel``,
/// whose ``H264/ProfileLevel/init(parsing:)`` and ``H264/ProfileLevel/profileLevelID`` read
/// and write its six hexadecimal digits (`42e01f`), and whose
/// ``H264/ProfileLevel/compatibility(withNegotiated:levelAsymmetryAllowed:)`` decides whether
/// a stream fits a negotiated one.
public typealias ProfileLevelID = ProfileLevel
