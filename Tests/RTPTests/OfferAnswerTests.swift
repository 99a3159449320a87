import H264
import RTP
import Testing

/// RFC 6184 8.2.2 / RFC 7742 offer/answer: the format chosen, the answered profile-level-id and
/// the level each direction uses.
@Suite struct OfferAnswerTests {
    static func offer(_ fmtp: String, pt: UInt8 = 96) throws -> (payloadType: UInt8, parameters: H264FormatParameters) {
        (pt, try H264FormatParameters(parsing: fmtp))
    }

    static func capability(_ ids: [String], modes: Set<Int> = [0, 1], asymmetry: Bool = true) throws -> H264OfferAnswer.Capability {
        H264OfferAnswer.Capability(profiles: try ids.map { try ProfileLevel(parsing: $0) }, packetizationModes: modes,
                                   levelAsymmetryAllowed: asymmetry)
    }

    @Test func levelAsymmetryOnBothSidesAnswersOurLevel() throws {
        let result = H264OfferAnswer.answer(
            offer: [try Self.offer("profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1")],
            capability: try Self.capability(["42e028"]))
        let answer = try #require(result.answer)
        #expect(answer.parameters.description == "packetization-mode=1;profile-level-id=42e028;level-asymmetry-allowed=1")
        #expect(answer.sendLimit.profileLevelID == "42e01f")
        #expect(answer.receiveLimit.profileLevelID == "42e028")
        #expect(answer.levelAsymmetric)
    }

    @Test func withoutAsymmetryTheLowerLevelHoldsBothWays() throws {
        for (offered, ours, expected) in [("42e01f", "42e028", "42e01f"), ("42e034", "42e01e", "42e01e")] {
            let result = H264OfferAnswer.answer(offer: [try Self.offer("profile-level-id=\(offered);packetization-mode=1")],
                                                capability: try Self.capability([ours]))
            let answer = try #require(result.answer)
            #expect(answer.parameters.profileLevelID?.profileLevelID == expected)
            #expect(answer.sendLimit == answer.receiveLimit)
            #expect(!answer.levelAsymmetric && answer.parameters.levelAsymmetryAllowed == false)
        }
    }

    @Test func firstAcceptableFormatInOfferOrder() throws {
        let offer = [try Self.offer("profile-level-id=640c34;packetization-mode=1", pt: 102),
                     try Self.offer("profile-level-id=42e01f;packetization-mode=0", pt: 103),
                     try Self.offer("profile-level-id=42e01f;packetization-mode=1", pt: 104)]
        let result = H264OfferAnswer.answer(offer: offer, capability: try Self.capability(["42e01f"], modes: [1]))
        #expect(result.answer?.payloadType == 104)
        #expect(result.rejected.map(\.payloadType) == [102, 103])
        #expect(result.rejected[0].reason.contains("Constrained High"))
        #expect(result.rejected[1].reason.contains("packetization-mode 0"))
    }

    /// Table 5: Extended with constraint_set0 and set1 is Constrained Baseline; plain Baseline is not.
    @Test func profilesMatchByTable5() throws {
        let cb = try Self.capability(["42e01f"])
        #expect(H264OfferAnswer.answer(offer: [try Self.offer("profile-level-id=58c01f;packetization-mode=1")], capability: cb)
            .answer?.parameters.profileLevelID?.profileLevelID == "58c01f")
        #expect(H264OfferAnswer.answer(offer: [try Self.offer("profile-level-id=42001f;packetization-mode=1")], capability: cb).answer == nil)
        // No profile-level-id: Baseline level 1 (RFC 6184 8.1), 42000a.
        let baseline = try Self.capability(["42001f"], asymmetry: false)
        #expect(H264OfferAnswer.answer(offer: [try Self.offer("packetization-mode=1")], capability: baseline)
            .answer?.parameters.profileLevelID?.profileLevelID == "42000a")
    }

    @Test func level1bIsWrittenAsTheProfileRequires() throws {
        let offer = [try Self.offer("profile-level-id=42f00b;packetization-mode=1")]
        #expect(H264OfferAnswer.answer(offer: offer, capability: try Self.capability(["42e01f"], asymmetry: false))
            .answer?.parameters.profileLevelID?.profileLevelID == "42f00b")
        #expect(H264OfferAnswer.answer(offer: offer, capability: try Self.capability(["42e00a"], asymmetry: false))
            .answer?.parameters.profileLevelID?.profileLevelID == "42e00a")
    }

    /// The send limit decides whether our stream fits.
    @Test func streamAgainstTheSendLimit() throws {
        let result = H264OfferAnswer.answer(
            offer: [try Self.offer("profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1")],
            capability: try Self.capability(["42e028"]))
        let limit = try #require(result.answer?.sendLimit)
        #expect(!(try ProfileLevel(parsing: "42e028")).compatibility(withNegotiated: limit).isCompatible)
        #expect((try ProfileLevel(parsing: "42e01e")).compatibility(withNegotiated: limit).isCompatible)
    }
}
