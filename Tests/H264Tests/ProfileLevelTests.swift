import Testing
import H264
import H264Fixtures
import TestSupport

/// Codec strings and `profile-level-id`s: known vectors, round trips, refusals, and the
/// compatibility decision of RFC 6184 8.1 / RFC 7742.
struct ProfileLevelTests {
    @Test(arguments: [
        ("42e01f", "Constrained Baseline", ProfileLevel.SDPProfile.constrainedBaseline, "3.1", 3.1),
        ("42001f", "Baseline", .baseline, "3.1", 3.1),
        ("4d401f", "Main", .main, "3.1", 3.1),
        ("640028", "High", .high, "4", 4.0),
        ("64001f", "High", .high, "3.1", 3.1),
        ("42e00b", "Constrained Baseline", .constrainedBaseline, "1.1", 1.1),
        ("42f00b", "Constrained Baseline", .constrainedBaseline, "1b", 1.05),
        ("4d801f", "Main", .constrainedBaseline, "3.1", 3.1),   // Main that is also CB (Table 5)
        ("58c01e", "Extended", .constrainedBaseline, "3", 3.0),
        ("58801e", "Extended", .baseline, "3", 3.0),
        ("640c1f", "Constrained High", .constrainedHigh, "3.1", 3.1),
        ("640009", "High", .high, "1b", 1.05),
        ("64101f", "High", nil, "3.1", 3.1),                 // constraint_set3 in High: not in Table 5
        ("6e1028", "High 10 Intra", .high10Intra, "4", 4.0),
    ] as [(String, String, ProfileLevel.SDPProfile?, String, Double)])
    func knownVectors(id: String, name: String, sdp: ProfileLevel.SDPProfile?, level: String, number: Double) throws {
        let pl = try ProfileLevel(parsing: id)
        #expect(pl.profileLevelID == id)
        #expect(pl.description == id)
        #expect(pl.codecString() == "avc1." + id)
        #expect(pl.codecString(sampleEntry: .avc3) == "avc3." + id)
        #expect(pl.profileName == name)
        #expect(pl.sdpProfile == sdp)
        #expect(pl.level.name == level)
        #expect(pl.level.number == number)
    }

    @Test func bytesAndFlags() throws {
        let pl = try ProfileLevel(codecString: "avc1.42E01F")
        #expect(pl == ProfileLevel(profileIDC: 66, constraintFlags: 0xe0, levelIDC: 31))
        #expect([0, 1, 2, 3, 4, 5].map(pl.constraintSet) == [true, true, true, false, false, false])
        #expect(!pl.constraintSet(6) && !pl.constraintSet(-1))
        #expect(ProfileLevel.sampleEntry(ofCodecString: "avc3.64001f") == .avc3)
        #expect(ProfileLevel.sampleEntry(ofCodecString: "hvc1.1.6.L93.B0") == nil)
    }

    /// The one level parser: Table A-1's names, `N.0`, and `level_idc` (9 is level 1b, 11 level 1.1).
    @Test func levelParsing() {
        #expect(ProfileLevel.Level("3.1") == ProfileLevel.Level(levelIDC: 31))
        #expect(ProfileLevel.Level("4") == ProfileLevel.Level(levelIDC: 40))
        #expect(ProfileLevel.Level("4.0") == ProfileLevel.Level(levelIDC: 40))
        #expect(ProfileLevel.Level("41") == ProfileLevel.Level(levelIDC: 41))
        #expect(ProfileLevel.Level("1b")?.isLevel1b == true)
        #expect(ProfileLevel.Level("9")?.isLevel1b == true)
        #expect(ProfileLevel.Level("11") == ProfileLevel.Level(levelIDC: 11))
        #expect(ProfileLevel.Level("11")?.isLevel1b == false)
        for text in ["3.3", "70", "auto", "", "3.", "-31", "1B"] { #expect(ProfileLevel.Level(text) == nil, "\(text)") }
        for level in ProfileLevel.Level.all { #expect(ProfileLevel.Level(level.name) == level) }
    }

    @Test func levelOrder() throws {
        let levels = try ["42e00a", "42f00b", "42e00b", "42e00c", "42e01f", "640033", "64003e"].map { try ProfileLevel(parsing: $0).level }
        #expect(levels == levels.sorted())
        #expect(try ProfileLevel(parsing: "640009").level == ProfileLevel(parsing: "42f00b").level)
    }

    @Test func roundTrips() throws {
        var rng = SplitMix64(seed: 18)
        for _ in 0..<2000 {
            let pl = ProfileLevel(profileIDC: .random(in: 0...255, using: &rng), constraintFlags: .random(in: 0...255, using: &rng),
                                  levelIDC: .random(in: 0...255, using: &rng))
            #expect(try ProfileLevel(parsing: pl.profileLevelID) == pl)
            #expect(try ProfileLevel(parsing: pl.profileLevelID.uppercased()) == pl)
            for entry in ProfileLevel.SampleEntry.allCases {
                let s = pl.codecString(sampleEntry: entry)
                #expect(try ProfileLevel(codecString: s) == pl)
                #expect(ProfileLevel.sampleEntry(ofCodecString: s) == entry)
            }
        }
    }

    @Test(arguments: ["", "avc1", "avc1.", "avc1.42e01", "avc1.42e01f0", "avc1.42g01f", "avc2.42e01f", "AVC1.42e01f",
                      "avc1.66.30", "avc1 42e01f", "avc1.42e01f,mp4a.40.2", "avc1.+2e01f", "avc1.４２e01f", "hvc1.1.6.L93.B0"])
    func malformedCodecStrings(text: String) {
        #expect(throws: H264Error(.invalidArgument, "")) { try ProfileLevel(codecString: text) }
    }

    @Test(arguments: ["", "42e01", "42e01f0", "42e0 1f", " 42e01f", "0x42e01f", "42e01g", "-42e01", "４２e01f"])
    func malformedProfileLevelIDs(text: String) {
        #expect(throws: H264Error(.invalidArgument, "")) { try ProfileLevel(parsing: text) }
    }

    @Test func fromSPS() throws {
        #expect(throws: H264Error(.invalidArgument, "")) { try ProfileLevel(sps: try NALUnit([0x68, 1, 2, 3])) }
        #expect(throws: H264Error(.truncated, "")) { try ProfileLevel(sps: try NALUnit([0x67, 0x42])) }
        // Emulation prevention is removed before the bytes are read.
        #expect(try ProfileLevel(sps: try NALUnit([0x67, 0, 0, 3, 1, 0x55])).profileLevelID == "000001")
        var sps = SequenceParameterSet()
        sps.profileIDC = 77
        sps.constraintSetFlags = [false, true, false, true, false, true]
        sps.reservedZero2Bits = 2
        sps.levelIDC = 11
        let pl = ProfileLevel(sps)
        #expect(pl.profileLevelID == "4d560b")
        #expect(pl.level.name == "1b" && sps.levelName == "1b" && sps.isLevel1b)
    }

    @Test func compatibility() throws {
        func check(_ stream: String, _ negotiated: String, asymmetry: Bool = false) throws -> ProfileLevel.Compatibility {
            try ProfileLevel(parsing: stream).compatibility(withNegotiated: ProfileLevel(parsing: negotiated), levelAsymmetryAllowed: asymmetry)
        }
        #expect(try check("42e01f", "42e01f") == .compatible)
        #expect(try check("42e01e", "42e01f") == .compatible)
        #expect(try check("42c01f", "42e01f") == .compatible)   // same Table 5 profile, other bytes
        #expect(try check("4d801f", "42e01f") == .compatible)   // Main with constraint_set0: CB
        let tooHigh = try check("42e028", "42e01f")
        #expect(tooHigh == .levelTooHigh(stream: ProfileLevel.Level(levelIDC: 40), negotiated: ProfileLevel.Level(levelIDC: 31)))
        #expect(!tooHigh.isCompatible)
        #expect(tooHigh.description == "level 4 above the negotiated 3.1")
        let asym = try check("42e028", "42e01f", asymmetry: true)
        #expect(asym.isCompatible)
        #expect(asym == .compatibleByLevelAsymmetry(stream: ProfileLevel.Level(levelIDC: 40), negotiated: ProfileLevel.Level(levelIDC: 31)))
        let mismatch = try check("42001f", "42e01f")
        #expect(!mismatch.isCompatible)
        #expect(mismatch == .profileMismatch(stream: try ProfileLevel(parsing: "42001f"), negotiated: try ProfileLevel(parsing: "42e01f")))
        #expect(!(try check("64001f", "42e01f", asymmetry: true).isCompatible))   // asymmetry never changes the profile
        #expect(!(try check("640c1f", "64001f").isCompatible))   // Constrained High is not High
        #expect(!(try check("4d401f", "42e01f").isCompatible))
        // Level 1b sits between 1 and 1.1.
        #expect(!(try check("42f00b", "42e00a").isCompatible))
        #expect(try check("42f00b", "42e00b") == .compatible)
        #expect(!(try check("42e00b", "42f00b").isCompatible))
        // Outside Table 5: the same bytes only.
        #expect(try check("64101e", "64101f") == .compatible)
        #expect(!(try check("64101f", "64201f").isCompatible))
    }
}

/// The fixtures' SPSs against ffprobe's `profile` and `level`.
@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe on PATH"))
struct ProfileLevelFFprobeTests {
    /// FFmpeg names no Progressive or Constrained High: both are High to it.
    static func ffmpegName(_ pl: ProfileLevel) -> String {
        switch pl.profileName {
        case "Progressive High", "Constrained High": return "High"
        case "CAVLC 4:4:4 Intra": return "CAVLC 4:4:4"
        case "High 4:4:4 Predictive" where pl.constraintSet(3): return "High 4:4:4 Intra"
        default: return pl.profileName
        }
    }

    /// ffprobe's `profile` and `level` of a file, nil when it describes none.
    static func ffprobeProfileLevel(_ path: String) throws -> (profile: String, level: Int)? {
        let r = try FFmpeg.ffprobe(["-v", "error", "-f", "h264", "-select_streams", "v:0", "-show_entries", "stream=profile,level",
                                    "-of", "default=noprint_wrappers=1", path])
        var fields: [Substring: Substring] = [:]
        for line in r.output.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            fields[line[..<eq]] = line[line.index(after: eq)...]
        }
        guard let profile = fields["profile"], profile != "unknown", let level = fields["level"].flatMap({ Int($0) }) else { return nil }
        return (String(profile), level)
    }

    /// Ours against ffprobe's for the first SPS of a stream.
    static func expectAgreement(_ units: [NALUnit], path: String, name: String) throws {
        let spsUnit = try #require(units.first { $0.type == .sps }, "\(name) has no SPS")
        let pl = try ProfileLevel(sps: spsUnit)
        #expect(pl == ProfileLevel(try SequenceParameterSet(rbsp: spsUnit.rbsp)), "\(name)")
        let probed = try #require(try ffprobeProfileLevel(path), "ffprobe gave no profile/level for \(name)")
        #expect(probed.profile == ffmpegName(pl), "\(name)")
        let levels = pl.level.isLevel1b ? [9, 11] : [Int(pl.levelIDC)]
        #expect(levels.contains(probed.level), "\(name): ffprobe level \(probed.level), ours \(pl.level)")
    }

    @Test func fixturesAgreeWithFFprobe() throws {
        var compared = 0
        // ffprobe describes no stream it cannot decode: missing-pps.264 has no PPS.
        for fixture in Fixture.all where fixture.facts.kind == .annexB && fixture != .missingPPS {
            let units = try AnnexB.split(fixture.bytes(), leadingData: .skip)
            #expect(units.first { $0.type == .sps }.map { Int($0.rbsp.first ?? 0) } == fixture.facts.profileIDC, "\(fixture.fileName)")
            try Self.expectAgreement(units, path: fixture.url.path, name: fixture.fileName)
            compared += 1
        }
        #expect(compared >= 20)
    }

    /// ffprobe finds no picture in this SVC stream ("missing picture in access unit"), so it
    /// reports profile "unknown" and level -99.
    static let undescribedByFFprobe: Set<String> = ["openh264/sps_subsetsps_bothVUI.264"]

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"),
          arguments: Corpus.annexBStreams.filter { !undescribedByFFprobe.contains($0) })
    func corpusAgreesWithFFprobe(stream: String) throws {
        let units = try AnnexB.split(try Corpus.read(stream), leadingData: .skip)
        try Self.expectAgreement(units, path: Corpus.path(stream), name: stream)
    }
}
