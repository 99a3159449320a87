import H264

/// A delivery target's rules and the parameters they are checked with: the MTU, the
/// `profile-level-id` the SDP negotiated, the largest SEI, the longest keyframe interval.
///
/// Five profiles are given: ``webRTC``, ``rtmp``, ``hls``, ``rtsp`` and the strict ``spec``
/// (conformance rules of H.264 that the headers show). Adjust the parameters to the session:
///
/// ```swift
/// var profile = DeliveryProfile.webRTC
/// profile.negotiated = try ProfileLevel(parsing: "42e01f")   // from the SDP answer
/// var checker = StreamChecker(profile: profile)
/// ```
public struct DeliveryProfile: Hashable, Sendable, CustomStringConvertible {
    /// The name `h264 check --profile` takes: `webrtc`, `rtmp`, `hls`, `rtsp`, `spec`.
    public var name: String
    /// The rules checked, in report order.
    public var rules: [DeliveryRule]
    /// The path MTU in bytes, for ``DeliveryRule/parameterSetsFitMTU`` (RTP header included).
    public var mtu: Int
    /// The `profile-level-id` negotiated in SDP, for ``DeliveryRule/negotiatedProfileLevel``;
    /// nil when none was (the rule is then not checked).
    public var negotiated: ProfileLevel?
    /// Both sides said `level-asymmetry-allowed=1` (RFC 6184 8.1).
    public var levelAsymmetryAllowed: Bool
    /// The largest SEI NAL unit the target takes, for ``DeliveryRule/seiSize``.
    public var maximumSEIBytes: Int
    /// The longest time between IDR access units, in seconds, for
    /// ``DeliveryRule/keyframeInterval``.
    public var maximumKeyframeInterval: Double

    /// Creates a profile.
    public init(name: String, rules: [DeliveryRule], mtu: Int = 1200, negotiated: ProfileLevel? = nil,
                levelAsymmetryAllowed: Bool = false, maximumSEIBytes: Int = 1100, maximumKeyframeInterval: Double = 2) {
        self.name = name
        self.rules = rules
        self.mtu = mtu
        self.negotiated = negotiated
        self.levelAsymmetryAllowed = levelAsymmetryAllowed
        self.maximumSEIBytes = maximumSEIBytes
        self.maximumKeyframeInterval = maximumKeyframeInterval
    }

    /// True when the profile checks `rule`.
    public func contains(_ rule: DeliveryRule) -> Bool { rules.contains { $0.id == rule.id } }

    /// ``name``.
    public var description: String { name }
}

extension DeliveryProfile {
    /// WebRTC (RFC 7742, RFC 6184 over SRTP): Constrained Baseline or Constrained High, no frame
    /// reordering, SPS and PPS with every IDR, parameter sets that fit a packet, small SEI, the
    /// negotiated level, and a declared reorder depth of 0 for decoders that output at once.
    /// MTU 1,200 bytes (libwebrtc's packet size), SEI at most 1,100 bytes.
    public static let webRTC = DeliveryProfile(
        name: "webrtc",
        rules: [.parameterSetsBeforeIDR, .noFrameReordering, .constrainedProfile, .negotiatedProfileLevel,
                .reorderingLatency, .parameterSetsFitMTU, .seiSize, .parameterSetsBeforeUse])

    /// RTMP (FLV video tags): a sequence header per format change and keyframe flags on random
    /// access points only; both need the container's facts (``StreamChecker/check(_:container:)``).
    public static let rtmp = DeliveryProfile(
        name: "rtmp",
        rules: [.sequenceHeaderPerFormatChange, .keyframeFlag, .parameterSetsBeforeUse])

    /// HLS over MPEG-2 TS: an access unit delimiter in every access unit, SPS and PPS at every
    /// IDR, a stream that begins with an IDR, and an IDR at least every 2 seconds so segments
    /// can start at one.
    public static let hls = DeliveryProfile(
        name: "hls",
        rules: [.accessUnitDelimiters, .parameterSetsBeforeIDR, .firstPictureIDR, .keyframeInterval, .parameterSetsBeforeUse])

    /// RTSP (RFC 6184 over RTP, SDP in DESCRIBE): SPS and PPS with every IDR (clients that join
    /// or lose packets cannot rely on `sprop-parameter-sets`, often missing), parameter sets
    /// that fit a packet, and the negotiated level. MTU 1,400 bytes.
    public static let rtsp = DeliveryProfile(
        name: "rtsp",
        rules: [.parameterSetsBeforeIDR, .negotiatedProfileLevel, .parameterSetsFitMTU, .parameterSetsBeforeUse],
        mtu: 1400)

    /// The strict profile: H.264 conformance rules the headers show (parameter sets before use,
    /// an IDR first, level limits, the declared reorder depth).
    public static let spec = DeliveryProfile(
        name: "spec",
        rules: [.parameterSetsBeforeUse, .firstPictureIDR, .levelLimits, .reorderingDeclared])

    /// The five profiles.
    public static let all: [DeliveryProfile] = [webRTC, rtmp, hls, rtsp, spec]

    /// The profile of that name (`webrtc`, `rtmp`, `hls`, `rtsp`, `spec`; any case), or nil.
    public static func named(_ name: String) -> DeliveryProfile? {
        all.first { $0.name == name.lowercased() }
    }
}
