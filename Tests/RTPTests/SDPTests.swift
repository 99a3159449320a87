import H264
import RTP
import Testing
import TestSupport

@Suite struct SDPTests {
    /// What a receiver needs first: the first SPS only, the distinct PPSs before the first
    /// slice; nothing after it.
    @Test func formatParametersOfAStream() throws {
        let sps1 = try NALUnit([0x67, 0x42, 0xE0, 0x0A, 0x96, 0x52, 0x85, 0x89, 0xC8])
        let sps2 = try NALUnit([0x67, 0x4D, 0x40, 0x1E, 0x96, 0x52, 0x85, 0x89, 0xC8])
        let pps0 = try NALUnit([0x68, 0xC9, 0x23, 0x88]), pps1 = try NALUnit([0x68, 0x53, 0x23, 0x88])
        let idr = try NALUnit([0x65, 0x88, 0x84, 0x21]), aud = try NALUnit([0x09, 0x10])
        let format = try H264FormatParameters(stream: [aud, sps1, sps2, pps0, pps0, pps1, idr, try NALUnit([0x68, 0xAA, 0x80])])
        #expect(format.parameterSets == [sps1, pps0, pps1].map { Array($0.bytes) })
        #expect(format.profileLevelID == (try ProfileLevel(sps: sps1)))
        #expect(format.packetizationMode == 1)
        // A PPS only after the first slice is still taken.
        let late = try H264FormatParameters(stream: [sps1, idr, pps0, idr])
        #expect(late.parameterSets == [sps1, pps0].map { Array($0.bytes) })
        #expect(throws: RTPError(.missingParameterSet, "")) { try H264FormatParameters(stream: [pps0, idr]) }
    }

    /// The RTCP port of the video stream: `a=rtcp` (RFC 3605) with or without an address,
    /// `a=rtcp-mux` (RFC 5761); those of an audio section do not count; port + 1 is the default
    /// and is not kept; a malformed port is refused. What is kept writes back.
    @Test func rtcpAttributes() throws {
        let head = "v=0\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
        let audio = "m=audio 6000 RTP/AVP 0\r\na=rtcp:7000\r\na=rtcp-mux\r\n"
        let video = "m=video 5004 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
        let plain = try RTPSessionDescription(parsing: head + audio + video)
        #expect(plain.rtcpPort == nil && !plain.rtcpMux && plain.effectiveRTCPPort == 5005)
        let given = try RTPSessionDescription(parsing: head + video + "a=rtcp:5999 IN IP4 127.0.0.1\r\n" + audio)
        #expect(given.rtcpPort == 5999 && !given.rtcpMux && given.effectiveRTCPPort == 5999)
        #expect(try RTPSessionDescription(parsing: given.text) == given)
        let next = try RTPSessionDescription(parsing: head + video + "a=rtcp:5005\r\n")
        #expect(next.rtcpPort == nil)
        let muxed = try RTPSessionDescription(parsing: head + video + "a=rtcp-mux\r\n")
        #expect(muxed.rtcpMux && muxed.effectiveRTCPPort == 5004)
        #expect(try RTPSessionDescription(parsing: muxed.text) == muxed)
        for bad in ["a=rtcp:\r\n", "a=rtcp:0\r\n", "a=rtcp:70000\r\n", "a=rtcp:x IN IP4 1.2.3.4\r\n"] {
            #expect(throws: RTPError(.invalidArgument, bad)) { try RTPSessionDescription(parsing: head + video + bad) }
        }
    }

    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func base64Vectors(plain: String, encoded: String) throws {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded) == Array(plain.utf8))
        #expect(try Base64.decode(encoded.filter { $0 != "=" }) == Array(plain.utf8))
    }

    @Test func base64AllBytes() throws {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(try Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }

    @Test(arguments: ["Z", "Zg=a", "Zh==", "Zm9=", "Z!==", "=", "Zg===="])
    func base64Rejects(text: String) {
        #expect(throws: RTPError(.invalidArgument, "")) { try Base64.decode(text) }
    }

    /// `profile-level-id` is the core's `ProfileLevel` (its own tests are in H264Tests): read
    /// from an fmtp line and checked against a stream's SPS, level asymmetry included.
    @Test func profileLevelIDAgainstAStream() throws {
        let sps = try NALUnit([0x67, 0x4D, 0x40, 0x1E, 0x95, 0xA0])
        #expect(try ProfileLevel(sps: sps) == ProfileLevel(profileIDC: 77, constraintFlags: 0x40, levelIDC: 30))
        let strict = try H264FormatParameters(parsing: "a=fmtp:96 packetization-mode=1;profile-level-id=4D4015")
        let asymmetric = try H264FormatParameters(parsing: "profile-level-id=4d4015; level-asymmetry-allowed = 1")
        #expect(!strict.levelAsymmetryAllowed && asymmetric.levelAsymmetryAllowed)
        #expect(!(try H264FormatParameters(parsing: "level-asymmetry-allowed=0").levelAsymmetryAllowed))
        let stream = try ProfileLevel(sps: sps)
        let negotiated = try #require(strict.profileLevelID)
        #expect(stream.compatibility(withNegotiated: negotiated, levelAsymmetryAllowed: strict.levelAsymmetryAllowed)
                == .levelTooHigh(stream: .init(levelIDC: 30), negotiated: .init(levelIDC: 21)))
        #expect(stream.compatibility(withNegotiated: negotiated, levelAsymmetryAllowed: asymmetric.levelAsymmetryAllowed).isCompatible)
        #expect(throws: RTPError(.invalidArgument, "")) { try H264FormatParameters(parsing: "profile-level-id=4d401") }
    }

    @Test func formatParametersRoundTrip() throws {
        let units = try [[0x67, 0x42, 0xC0, 0x1F, 0xDA, 0x01], [0x68, 0xCE, 0x3C, 0x80], [0x65, 1]].map { try NALUnit($0) }
        let format = try H264FormatParameters(parameterSets: units)
        #expect(format.description == "packetization-mode=1;profile-level-id=42c01f;sprop-parameter-sets=Z0LAH9oB,aM48gA==")
        let parsed = try H264FormatParameters(parsing: "a=fmtp:96 " + format.description)
        #expect(parsed == format)
        #expect(try parsed.parameterSetNALUnits().map(\.type) == [.sps, .pps])
        let other = try H264FormatParameters(parsing: "profile-level-id=42e01f; level-asymmetry-allowed=1")
        #expect(other.packetizationMode == 0 && other.otherParameters == ["level-asymmetry-allowed=1"])
        #expect(throws: RTPError(.invalidArgument, "")) { try H264FormatParameters(parsing: "packetization-mode=7") }
        #expect(throws: RTPError(.invalidArgument, "")) { try H264FormatParameters(parsing: "sprop-parameter-sets=Z0L!") }
        let core = #expect(throws: RTPError(.h264, "")) { try H264FormatParameters(parsing: "sprop-parameter-sets=5w==") }
        #expect(core?.underlying(as: H264Error.self)?.code == .forbiddenBitSet)
        #expect(throws: RTPError(.missingParameterSet, "")) { try H264FormatParameters(parameterSets: [units[1]]) }
    }

    /// sprop-parameter-sets with any number of entries, empty ones included: never a trap.
    @Test(arguments: [
        ("", 0), (",", 0), (" , ,", 0), ("Z0LAH9oB", 1), ("aM48gA==", 1), ("Z0LAH9oB,aM48gA==", 2), ("Z0LAH9oB,,aM48gA==,", 2),
        (" Z0LAH9oB , aM48gA== ", 2), ("Z0LAH9oB,aM48gA==,aM48gA==", 3),
        ("Z0LAH9oB,aM48gA==,Z00AHg==,aO48gA==,aM48gA==", 5),
    ])
    func spropParameterSetsOfAnyCount(value: String, count: Int) throws {
        let format = try H264FormatParameters(parsing: "packetization-mode=1;sprop-parameter-sets=\(value)")
        #expect(format.parameterSets.count == count)
        #expect(try format.parameterSetNALUnits().allSatisfy { $0.type == .sps || $0.type == .pps })
        let sdp = "v=0\r\nc=IN IP4 127.0.0.1\r\nm=video 5004 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
            + "a=fmtp:96 sprop-parameter-sets=\(value)\r\n"
        let configuration = try RTPReceiver.Options(session: try RTPSessionDescription(parsing: sdp))
        #expect(configuration.parameterSets.count == count)
    }

    @Test func spropParameterSetsBounded() throws {
        let many = Array(repeating: "aM48gA==", count: H264FormatParameters.maximumParameterSets).joined(separator: ",")
        #expect(try H264FormatParameters.parseParameterSets(many).count == H264FormatParameters.maximumParameterSets)
        #expect(throws: RTPError(.limitExceeded, "")) { try H264FormatParameters.parseParameterSets(many + ",aM48gA==") }
        #expect(throws: RTPError(.invalidArgument, "")) { try H264FormatParameters.parseParameterSets("Z0LAH9oB,%%") }
    }

    @Test func sessionDescriptionRoundTrip() throws {
        let format = H264FormatParameters(profileLevelID: ProfileLevel(profileIDC: 100, constraintFlags: 0, levelIDC: 40),
                                          parameterSets: [[0x67, 0x64, 0, 0x28], [0x68, 0xEE]])
        let sdp = RTPSessionDescription(connectionAddress: "127.0.0.1", port: 5004, format: format, frameRate: 25)
        #expect(sdp.text.hasPrefix("v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=swift-h264\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"))
        #expect(sdp.text.contains("m=video 5004 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"))
        #expect(sdp.text.contains("a=fmtp:96 packetization-mode=1;profile-level-id=640028;sprop-parameter-sets=Z2QAKA==,aO4=\r\n"))
        #expect(try RTPSessionDescription(parsing: sdp.text) == sdp)
        let v6 = RTPSessionDescription(connectionAddress: "::1", port: 6000, payloadType: 100, format: format)
        #expect(v6.text.contains("c=IN IP6 ::1"))
        #expect(try RTPSessionDescription(parsing: v6.text) == v6)
        #expect(throws: RTPError(.invalidArgument, "")) { try RTPSessionDescription(parsing: "v=0\r\n") }
        #expect(throws: RTPError(.invalidArgument, "")) {
            try RTPSessionDescription(parsing: "m=video 5004 RTP/AVP 96\na=rtpmap:96 VP8/90000\n")
        }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func corpusParameterSets() throws {
        let units = try AnnexB.split(try Corpus.read("cros-codecs/test-25fps.h264"))
        let format = try H264FormatParameters(parameterSets: Array(units.prefix(3)))
        #expect(format.profileLevelID?.profileIDC == 77)
        #expect(try H264FormatParameters(parsing: format.description) == format)
    }
}
