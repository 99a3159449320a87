import FLV
import Foundation
import H264
import H264Delivery
import H264Fixtures
import Testing
import TestSupport

/// One test per field bug: the check reports it where it shows, and the fix (the stream fixer,
/// or for a sender's bug the library's sender) removes it.
@Suite struct FieldBugTests {
    /// Rules checked, profile and the rule each bug breaks.
    static func expectation(_ bug: FieldBugFixture.Bug) -> (DeliveryProfile, DeliveryRule) {
        switch bug {
        case .parameterSetsOnlyOnce: return (.webRTC, .parameterSetsBeforeIDR)
        case .bFramesForWebRTC: return (.webRTC, .noFrameReordering)
        case .profileLevelIDDisagreesWithSPS: return (.webRTC, .negotiatedProfileLevel)
        case .everyFLVTagKeyframe: return (.rtmp, .keyframeFlag)
        case .sequenceHeaderNotResent: return (.rtmp, .sequenceHeaderPerFormatChange)
        case .recoveryPointNotKeyframe: return (.rtmp, .keyframeFlag)
        case .missingAUDsForHLS: return (.hls, .accessUnitDelimiters)
        case .parameterSetsLargerThanMTU: return (.webRTC, .parameterSetsFitMTU)
        case .oversizedSEI: return (.webRTC, .seiSize)
        }
    }

    @Test(arguments: FieldBugFixture.Bug.allCases)
    func checkReportsTheBug(_ bug: FieldBugFixture.Bug) throws {
        let fixture = try FieldBugFixture(bug)
        let (base, rule) = Self.expectation(bug)
        let profile = try DeliveryTestSupport.profile(for: fixture, base)
        let checker = DeliveryTestSupport.check(fixture, profile)
        let hits = checker.violations.filter { $0.rule == rule }
        #expect(hits.first?.accessUnit == fixture.firstAffectedAccessUnit, "\(bug): \(checker.violations)")
        #expect(checker.counts[rule.id] == hits.count)
        #expect(!checker.conforms)
        // Each violation names where its access unit starts in the stream.
        let offsets = AccessUnits.assemble(annexB: fixture.annexB[...]).accessUnits.map(\.byteOffset)
        for v in checker.violations { #expect(v.byteOffset == offsets[v.accessUnit], "\(v)") }
    }

    /// The bugs the stream fixer removes: after `edit --for`, the rule holds.
    @Test(arguments: [FieldBugFixture.Bug.parameterSetsOnlyOnce, .profileLevelIDDisagreesWithSPS, .missingAUDsForHLS, .oversizedSEI])
    func fixRemovesTheBug(_ bug: FieldBugFixture.Bug) throws {
        let fixture = try FieldBugFixture(bug)
        let (base, rule) = Self.expectation(bug)
        let profile = try DeliveryTestSupport.profile(for: fixture, base)
        let (fixed, plan, before) = try StreamFixer.fix(annexB: fixture.annexB[...], profile: profile)
        #expect((before.counts[rule.id] ?? 0) > 0)
        #expect(plan.fixes.contains { $0.rule == rule }, "\(plan.fixes)")
        #expect(!plan.unfixable.contains { $0.rule == rule })
        let after = StreamChecker.check(annexB: fixed[...], profile: profile)
        #expect(after.counts[rule.id] == nil, "\(after.violations)")
        #expect(after.conforms, "\(after.violations)")
        // Only headers, delimiters, parameter sets and the dropped SEI changed: the slices are
        // the same bytes.
        let slices = { (b: [UInt8]) in try AnnexB.split(b[...]).filter(\.type.isVCL).map { Array($0.bytes) } }
        #expect(try slices(fixed) == slices(fixture.annexB))
    }

    @Test func levelFixWritesTheNegotiatedLevel() throws {
        let fixture = try FieldBugFixture(.profileLevelIDDisagreesWithSPS)
        let profile = try DeliveryTestSupport.profile(for: fixture, .webRTC)
        let (fixed, _, _) = try StreamFixer.fix(annexB: fixture.annexB[...], profile: profile)
        let sps = try #require(try AnnexB.split(fixed[...]).first { $0.type == .sps })
        #expect(try ProfileLevel(sps: sps).profileLevelID == "42e01f")
    }

    @Test func bFramesAreReportedWithTheEncoderSetting() throws {
        let fixture = try FieldBugFixture(.bFramesForWebRTC)
        let (fixed, plan, _) = try StreamFixer.fix(annexB: fixture.annexB[...], profile: .webRTC)
        let item = try #require(plan.unfixable.first { $0.rule == .noFrameReordering })
        #expect(item.action.contains("--bframes 0") && item.action.contains("allowFrameReordering"))
        // Main profile with B slices: no constraint flag can make it Constrained Baseline.
        #expect(plan.unfixable.contains { $0.rule == .constrainedProfile })
        #expect(StreamChecker.check(annexB: fixed[...], profile: .webRTC).counts[DeliveryRule.noFrameReordering.id] != nil)
    }

    /// The sender's bugs: the library's FLV writer flags keyframes from the bitstream and sends a
    /// sequence header per change; read back, the rules hold.
    @Test(arguments: [FieldBugFixture.Bug.everyFLVTagKeyframe, .sequenceHeaderNotResent, .recoveryPointNotKeyframe])
    func flvWriterAvoidsTheBug(_ bug: FieldBugFixture.Bug) throws {
        let fixture = try FieldBugFixture(bug)
        let (_, rule) = Self.expectation(bug)
        let flv = try FLVConversion.annexBToFLV(fixture.annexB)
        let checker = try DeliveryTestSupport.checkFLV(flv, .rtmp, chunk: 100)
        #expect(checker.accessUnitCount == fixture.accessUnits.count)
        #expect(checker.counts[rule.id] == nil, "\(checker.violations)")
        #expect(checker.conforms, "\(checker.violations)")
        #expect(checker.uncheckedRules.isEmpty)
    }

    /// FLV tags carry no picture order counts: B slices are still seen, and no claim is made
    /// that the stream never reorders.
    @Test func flvInputSeesBSlicesWithoutOrderCounts() throws {
        let fixture = try FieldBugFixture(.bFramesForWebRTC)
        let checker = try DeliveryTestSupport.checkFLV(try FLVConversion.annexBToFLV(fixture.annexB), .webRTC)
        #expect(checker.violations.first { $0.rule == .noFrameReordering }?.accessUnit == 2)
        #expect(checker.counts[DeliveryRule.reorderingLatency.id] == nil)
        let ipOnly = try FieldBugFixture(.missingAUDsForHLS)
        let plain = try DeliveryTestSupport.checkFLV(try FLVConversion.annexBToFLV(ipOnly.annexB), .webRTC)
        #expect(plain.violations.isEmpty, "\(plain.violations)")
    }

    /// The faulty FLV itself, read from a file: the same violation as from the fixture's facts.
    @Test func flvWithEveryTagKeyframeIsReported() throws {
        let fixture = try FieldBugFixture(.everyFLVTagKeyframe)
        var flv = try FLVConversion.annexBToFLV(fixture.annexB)
        // Set FrameType 1 in every video tag (tag header 11 bytes; FrameType in the body's high nibble).
        var offset = 13
        while offset + 11 < flv.count {
            let size = Int(flv[offset + 1]) << 16 | Int(flv[offset + 2]) << 8 | Int(flv[offset + 3])
            if flv[offset] == 9 { flv[offset + 11] = 0x10 | (flv[offset + 11] & 0x0F) }
            offset += 11 + size + 4
        }
        let checker = try DeliveryTestSupport.checkFLV(flv, .rtmp)
        #expect(checker.violations.filter { $0.rule == .keyframeFlag }.map(\.accessUnit) == [1, 2, 3, 5, 6, 7])
    }

    /// Only-once parameter sets, fixed: FFmpeg decodes every frame from every IDR on; unfixed,
    /// it decodes nothing from the second IDR.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"))
    func fixedStreamDecodesFromEveryIDR() throws {
        let fixture = try FieldBugFixture(.parameterSetsOnlyOnce)
        let (fixed, _, _) = try StreamFixer.fix(annexB: fixture.annexB[...], profile: .webRTC)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, stream) in [("fixed", fixed), ("unfixed", fixture.annexB)] {
            let aus = AccessUnits.assemble(annexB: stream[...]).accessUnits
            let idrs = aus.filter(\.isSyncSample)
            #expect(idrs.count >= 2, "\(name): \(idrs.count) IDR access units, the second is what the fix is about")
            for idr in idrs {
                let cut = Array(stream[(idr.byteOffset ?? 0)...])
                let path = try Support.temporaryFile(cut, name: "\(name)-\(idr.index).264")
                let r = try FFmpeg.ffmpeg(["-v", "error", "-i", path, "-f", "framecrc", "-"])
                let frames = r.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
                if name == "fixed" || idr.index == 0 {
                    #expect(frames == aus.count - idr.index, "\(name) from access unit \(idr.index): \(r.stderr)")
                    #expect(r.stderr.isEmpty, "\(name) from access unit \(idr.index): \(r.stderr)")
                } else {
                    #expect(frames == 0, "unfixed from access unit \(idr.index) decoded \(frames) frames")
                }
            }
        }
    }

    /// The other fixed streams decode in FFmpeg with every frame.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg"),
          arguments: [FieldBugFixture.Bug.profileLevelIDDisagreesWithSPS, .missingAUDsForHLS, .oversizedSEI])
    func fixedStreamDecodes(_ bug: FieldBugFixture.Bug) throws {
        let fixture = try FieldBugFixture(bug)
        let (base, _) = Self.expectation(bug)
        let (fixed, _, _) = try StreamFixer.fix(annexB: fixture.annexB[...], profile: try DeliveryTestSupport.profile(for: fixture, base))
        let path = try Support.temporaryFile(fixed, name: "\(bug.rawValue).264")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try FFmpeg.ffmpeg(["-v", "error", "-i", path, "-f", "framecrc", "-"])
        #expect(r.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == fixture.accessUnits.count)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }
}
