import FLV
import H264
import H264Delivery
import H264Fixtures

/// Helpers the delivery tests share.
enum DeliveryTestSupport {
    /// The profile a field bug is checked against, with the session values the fixture gives.
    static func profile(for fixture: FieldBugFixture, _ base: DeliveryProfile) throws -> DeliveryProfile {
        var profile = base
        if let id = fixture.negotiatedProfileLevelID { profile.negotiated = try ProfileLevel(parsing: id) }
        if let mtu = fixture.mtu { profile.mtu = mtu }
        return profile
    }

    /// Checks the fixture as its faulty sender delivered it: the Annex-B stream, or, when the
    /// bug is about a container, its access units with the sender's keyframe flags and sequence
    /// headers.
    static func check(_ fixture: FieldBugFixture, _ profile: DeliveryProfile) -> StreamChecker {
        guard fixture.senderKeyframeFlags != nil || fixture.senderSequenceHeaders != nil else {
            return StreamChecker.check(annexB: fixture.annexB[...], profile: profile)
        }
        var checker = StreamChecker(profile: profile)
        let aus = AccessUnits.assemble(annexB: fixture.annexB[...]).accessUnits
        var inForce: [NALUnit] = []
        for (i, au) in aus.enumerated() {
            let flag = fixture.senderKeyframeFlags?[i] ?? au.isRandomAccessPoint
            var configuration: [NALUnit]?
            let headers = fixture.senderSequenceHeaders ?? aus.indices.filter { aus[$0].nalUnits.contains { $0.type == .sps } }
            for unit in au.nalUnits where unit.type == .sps || unit.type == .pps {
                inForce.removeAll { $0.type == unit.type && $0.parameterSetID == unit.parameterSetID }
                inForce.append(unit)
            }
            if headers.contains(i) { configuration = inForce }
            checker.check(au, container: DeliveryContainerFacts(keyframeFlag: flag, decoderConfiguration: configuration))
        }
        checker.finish()
        return checker
    }

    /// An FLV file read back through ``FLVStreamChecker``, in chunks of `chunk` bytes.
    static func checkFLV(_ flv: [UInt8], _ profile: DeliveryProfile, chunk: Int = 4096) throws -> StreamChecker {
        var checker = FLVStreamChecker(profile: profile)
        var start = 0
        while start < flv.count {
            try checker.append(flv[start..<min(flv.count, start + chunk)])
            start += chunk
        }
        try checker.finish()
        return checker.checker
    }
}
