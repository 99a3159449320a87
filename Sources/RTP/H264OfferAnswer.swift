import H264

/// SDP offer/answer for H.264 (RFC 6184 8.2.2, RFC 7742 6.2): given the H.264 formats of an
/// offer and what this side decodes and sends, the format to answer with, its `a=fmtp`
/// parameters, and which level limits each direction.
///
/// ```swift
/// let offer = try H264FormatParameters(parsing: "profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1")
/// let ours = H264OfferAnswer.Capability(profiles: [try ProfileLevel(parsing: "42e028")])
/// let result = H264OfferAnswer.answer(offer: [(96, offer)], capability: ours)
/// result.answer?.parameters.description  // "packetization-mode=1;profile-level-id=42e028;level-asymmetry-allowed=1"
/// result.answer?.sendLimit              // 42e01f: the offerer decodes up to 3.1
/// ```
///
/// To check (and fix) the stream sent against the answer, give ``Answer/sendLimit`` to the
/// H264Delivery module's `DeliveryProfile.negotiated` (level asymmetry already applied).
///
/// Levels: without `level-asymmetry-allowed=1` on both sides, one level holds both ways, the
/// lower of the offered level and ours. With it on both sides, each side's
/// `profile-level-id` states the highest level it receives: we send within the offered level
/// and answer with our own.
public enum H264OfferAnswer {
    /// What this side supports.
    public struct Capability: Hashable, Sendable {
        /// The profiles decoded (and sent), each with the highest level for it: by RFC 6184
        /// Table 5 profile (`42e01f` also matches an offer of `4d401f`, both Constrained
        /// Baseline).
        public var profiles: [ProfileLevel]
        /// The packetization modes supported (0: single NAL unit, 1: non-interleaved).
        public var packetizationModes: Set<Int>
        /// This side allows level asymmetry (`level-asymmetry-allowed=1`).
        public var levelAsymmetryAllowed: Bool

        /// Creates a capability; by default modes 0 and 1 and level asymmetry allowed, as
        /// RFC 7742 recommends for WebRTC.
        public init(profiles: [ProfileLevel], packetizationModes: Set<Int> = [0, 1], levelAsymmetryAllowed: Bool = true) {
            self.profiles = profiles
            self.packetizationModes = packetizationModes
            self.levelAsymmetryAllowed = levelAsymmetryAllowed
        }
    }

    /// The chosen format.
    public struct Answer: Hashable, Sendable {
        /// The offer's payload type for the format.
        public var payloadType: UInt8
        /// The answer's `a=fmtp` parameters: the offered packetization mode, the answered
        /// `profile-level-id`, and `level-asymmetry-allowed=1` when both sides allow it.
        public var parameters: H264FormatParameters
        /// What the stream this side sends must fit: the offered profile at the level the
        /// other side receives. Check a stream against it with
        /// `ProfileLevel.compatibility(withNegotiated:)` (level asymmetry already applied).
        public var sendLimit: ProfileLevel
        /// What the other side may send: the answered `profile-level-id`.
        public var receiveLimit: ProfileLevel
        /// Both sides allow level asymmetry.
        public var levelAsymmetric: Bool
    }

    /// A format of the offer not chosen, and why.
    public struct Rejection: Hashable, Sendable, CustomStringConvertible {
        /// The offer's payload type.
        public var payloadType: UInt8
        /// Why, one line.
        public var reason: String

        /// `PT: reason`.
        public var description: String { "\(payloadType): \(reason)" }
    }

    /// The `profile-level-id` an offer without one means (RFC 6184 8.1): Baseline, level 1
    /// (`42000a`). libwebrtc assumes Constrained Baseline 3.1 (`42e01f`) instead, for peers of
    /// its own older versions: set that as the offer's `profileLevelID` to do the same.
    public static let defaultProfileLevel = ProfileLevel(profileIDC: 0x42, constraintFlags: 0, levelIDC: 0x0a)

    /// Chooses the first format of `offer` (in the offer's order of preference) whose profile
    /// and packetization mode `capability` supports.
    /// - Parameters:
    ///   - offer: the offer's H.264 formats: payload type and `a=fmtp` parameters.
    ///   - capability: what this side supports.
    /// - Returns: the answer (nil when no format is acceptable), and the formats passed over
    ///   before it with the reason.
    /// - Complexity: O(offer x capability profiles).
    public static func answer(offer: [(payloadType: UInt8, parameters: H264FormatParameters)],
                              capability: Capability) -> (answer: Answer?, rejected: [Rejection]) {
        var rejected: [Rejection] = []
        for (payloadType, offered) in offer {
            guard capability.packetizationModes.contains(offered.packetizationMode) else {
                rejected.append(Rejection(payloadType: payloadType, reason: "packetization-mode \(offered.packetizationMode) not supported"))
                continue
            }
            let theirs = offered.profileLevelID ?? defaultProfileLevel
            guard let ours = capability.profiles.first(where: { $0.hasSameProfile(as: theirs) }) else {
                rejected.append(Rejection(payloadType: payloadType,
                                          reason: "profile \(theirs.profileName) (\(theirs.profileLevelID)) not supported"))
                continue
            }
            let asymmetric = offered.levelAsymmetryAllowed && capability.levelAsymmetryAllowed
            let answered: ProfileLevel
            let send: ProfileLevel
            if asymmetric {
                answered = theirs.replacingLevel(ours.level)  // the highest level we receive
                send = theirs                              // the highest the offerer receives
            } else {
                answered = theirs.replacingLevel(Swift.min(theirs.level, ours.level))
                send = answered
            }
            var parameters = H264FormatParameters(packetizationMode: offered.packetizationMode, profileLevelID: answered)
            if asymmetric { parameters.otherParameters.append("level-asymmetry-allowed=1") }
            return (Answer(payloadType: payloadType, parameters: parameters, sendLimit: send, receiveLimit: answered,
                           levelAsymmetric: asymmetric), rejected)
        }
        return (nil, rejected)
    }
}
