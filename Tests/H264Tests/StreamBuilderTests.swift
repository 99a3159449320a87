import Foundation
import Testing
import TestSupport
@testable import H264
@testable import H264Fixtures

/// One combination of the builder matrix: the SPS/PPS choices and a picture script.
struct BuilderCombination: CustomStringConvertible, Sendable {
    enum Pattern: String, CaseIterable, Sendable { case intra, ip, ipb, spsi }
    enum Structure: String, CaseIterable, Sendable { case frames, mbaff, fields }

    var profile: UInt8
    var pocType: UInt8
    var pattern: Pattern
    var recoveryPointStart: Bool
    var aud: Bool
    var slices: Int
    var structure: Structure
    var cabac: Bool

    var description: String {
        "profile \(profile) poc \(pocType) \(pattern) \(recoveryPointStart ? "recovery" : "idr") aud \(aud) slices \(slices) \(structure) \(cabac ? "cabac" : "cavlc")"
    }

    /// A size per profile that needs cropping and stays a whole number of crop units in every
    /// structure (frames and interlaced).
    var size: (Int, Int) {
        switch profile {
        case 66: return (64, 48)
        case 77: return (98, 52)
        case 100: return (80, 40)
        case 110: return (48, 32)
        case 122: return (34, 30)
        default: return (61, 46)
        }
    }

    var options: StreamBuilder.SequenceOptions {
        var o = StreamBuilder.SequenceOptions(width: size.0, height: size.1, profileIDC: profile, levelIDC: 21)
        o.pocType = pocType
        o.cabac = cabac
        o.frameMbsOnly = structure == .frames
        o.mbaff = structure == .mbaff
        o.bottomFieldPicOrderInFramePresent = aud  // varies with another dimension
        o.transform8x8Mode = profile >= 100 && slices > 1
        o.frameRate = (25, 1)
        if profile == 77 { o.sampleAspectRatio = (4, 3); o.colorDescription = ColorDescription(primaries: 1, transferCharacteristics: 1, matrixCoefficients: 1, fullRange: true) }
        if pattern == .ipb { o.maxNumReorderFrames = 1 }
        return o
    }

    /// The pictures in decoding order, as a script (see `StreamBuilder.pictures(script:)`).
    var script: String {
        let start = recoveryPointStart ? "~" : "!"
        let frames: [String]
        switch pattern {
        case .intra: frames = ["I\(start)", "I", "I*"]
        case .ip: frames = ["I\(start)", "P", "P*", "P^1"]
        case .ipb:
            // POC type 2 cannot reorder: B pictures stay in output order.
            frames = pocType == 2 ? ["I\(start)", "P", "B", "P"] : ["I\(start)", "P@8", "B@4", "B@6^2", "P@12", "B@10"]
        case .spsi: frames = ["SI\(start)", "SP", "P", "SP*"]
        }
        guard structure == .fields else { return frames.map { $0 + "x\(slices)" }.joined(separator: " ") }
        // Field pairs: the first field carries the modifiers, the second is the other parity
        // (POC + 1 when given), same slice kind, never IDR.
        return frames.map { f -> String in
            var second = f.replacingOccurrences(of: "!", with: "").replacingOccurrences(of: "~", with: "")
            if let at = second.firstIndex(of: "@") {
                let digits = second[second.index(after: at)...].prefix { $0.isNumber }
                second = second.replacingOccurrences(of: "@\(digits)", with: "@\(Int(digits)! + 1)")
            }
            return "\(f)/tx\(slices) \(second)/bx\(slices)"
        }.joined(separator: " ")
    }

    func build() throws -> StreamBuilder {
        var builder = try StreamBuilder(options)
        builder.accessUnitDelimiters = aud
        try builder.append(script: script)
        return builder
    }

    /// Every POC type × slice pattern × structure, twice: the four on/off dimensions
    /// (recovery point or IDR, AUD, 1 or 3 slices, CABAC) vary with the index in the first
    /// copy and take the opposite values in the second, so each value of each meets every
    /// POC type, pattern and structure (72 streams per profile; 54 for Baseline, CAVLC only).
    static func all(profile: UInt8) -> [BuilderCombination] {
        var out: [BuilderCombination] = []
        var i = 0
        for pocType: UInt8 in [0, 1, 2] {
            for pattern in Pattern.allCases {
                for structure in Structure.allCases {
                    for flip in [false, true] {
                        let bits = [i & 1 != 0, i & 2 != 0, i & 4 != 0, (i / 3) & 1 != 0].map { $0 != flip }
                        let cabac = profile != 66 && bits[3]
                        if profile == 66 && flip && bits[3] { continue }
                        out.append(BuilderCombination(profile: profile, pocType: pocType, pattern: pattern,
                                                      recoveryPointStart: bits[0], aud: bits[1], slices: bits[2] ? 3 : 1,
                                                      structure: structure, cabac: cabac))
                    }
                    i += 1
                }
            }
        }
        return out
    }
}

/// The stream builder: every combination of the matrix parses back to what was asked for,
/// converts to AVCC with 1/2/4-byte lengths, and traces identically in FFmpeg.
@Suite struct StreamBuilderTests {
    static let profiles: [UInt8] = [66, 77, 100, 110, 122, 244]

    @Test(arguments: profiles)
    func parserReturnsWhatWasAskedFor(profile: UInt8) throws {
        for combination in BuilderCombination.all(profile: profile) {
            try Self.checkParse(combination)
        }
    }

    static func checkParse(_ combination: BuilderCombination) throws {
        let builder = try combination.build()
        let bytes = builder.annexB()
        let units = try AnnexB.split(bytes)
        #expect(units.count == builder.accessUnits.reduce(0) { $0 + $1.count }, "\(combination)")

        // The SPS.
        let spsUnit = try #require(units.first { $0.type == .sps })
        let sps = try SequenceParameterSet(rbsp: spsUnit.rbsp)
        let options = combination.options
        #expect(sps.width == options.width && sps.height == options.height, "\(combination)")
        #expect(sps.profileIDC == combination.profile && sps.picOrderCntType == combination.pocType, "\(combination)")
        #expect(sps.frameMbsOnlyFlag == options.frameMbsOnly && sps.mbAdaptiveFrameFieldFlag == options.mbaff, "\(combination)")
        #expect(sps.frameRate.map { $0.numerator / $0.denominator } == 25, "\(combination)")

        // Every slice header, as written.
        var store = ParameterSetStore()
        var slices: [SliceHeader] = []
        for unit in units {
            switch unit.type {
            case .sps: store.insert(try SequenceParameterSet(rbsp: unit.rbsp))
            case .pps: store.insert(try PictureParameterSet(rbsp: unit.rbsp, context: store))
            case .slice, .idrSlice: slices.append(try SliceHeader.parse(unit, context: store).header)
            default: break
            }
        }
        let written = builder.pictures.flatMap(\.sliceHeaders)
        #expect(slices.count == written.count, "\(combination)")
        for (parsed, asked) in zip(slices, written) {
            #expect(parsed.firstMbInSlice == asked.firstMbInSlice && parsed.sliceType == asked.sliceType
                    && parsed.frameNum == asked.frameNum && parsed.fieldPicFlag == asked.fieldPicFlag
                    && parsed.bottomFieldFlag == asked.bottomFieldFlag && parsed.idrPicID == asked.idrPicID
                    && parsed.picOrderCntLsb == asked.picOrderCntLsb && parsed.deltaPicOrderCnt0 == asked.deltaPicOrderCnt0,
                    "\(combination)")
        }

        // Access units: one per picture, keyframes, POC.
        let (accessUnits, errors) = AccessUnits.assemble(annexB: bytes[...])
        #expect(errors.isEmpty, "\(combination): \(errors)")
        #expect(accessUnits.count == builder.pictures.count, "\(combination)")
        let idrs = builder.pictures.filter { $0.nalUnitType == 5 }.count
        #expect(accessUnits.filter(\.flags.isSync).count == idrs, "\(combination)")
        if combination.recoveryPointStart {
            #expect(accessUnits.first?.flags.isRandomAccess == true, "\(combination)")
            #expect(accessUnits.first?.flags.recoveryFrameCount == 0, "\(combination)")
        }
        #expect(accessUnits.map(\.poc) == builder.pictures.map { Optional($0.poc.value) }, "\(combination)")
        if combination.pattern == .ipb && combination.pocType != 2 {
            // Output order: I B B P B P (frames) by POC.
            let order = builder.pictures.indices.sorted { builder.pictures[$0].poc.value < builder.pictures[$1].poc.value }
            #expect(order != Array(builder.pictures.indices), "\(combination): B pictures reorder")
        }
        if combination.aud {
            #expect(accessUnits.allSatisfy { $0.nalUnits.first?.type == .accessUnitDelimiter }, "\(combination)")
        }

        // AVCC with every length size: the same NAL units without SPS/PPS, and the record.
        let annexBNoParameterSets = units.filter { $0.type != .sps && $0.type != .pps }.map { Array($0.bytes) }
        // 1-byte lengths need NAL units under 256 bytes: the same pictures without I_PCM.
        var small = try StreamBuilder(options)
        small.accessUnitDelimiters = combination.aud
        small.pcmIntraSlices = false
        try small.append(script: combination.script)
        let smallUnits = try AnnexB.split(small.annexB()).filter { $0.type != .sps && $0.type != .pps }.map { Array($0.bytes) }
        if annexBNoParameterSets.contains(where: { $0.count > 255 }) {
            #expect(throws: H264Error(.nalUnitTooLarge, "")) { try builder.avcc(lengthSize: .one) }
        }
        for lengthSize in [AVCC.LengthSize.one, .two, .four] {
            let (avcc, sizes, record) = try (lengthSize == .one ? small : builder).avcc(lengthSize: lengthSize)
            let annexBNoParameterSets = lengthSize == .one ? smallUnits : annexBNoParameterSets
            #expect(try AVCC.split(avcc, lengthSize: lengthSize).map { Array($0.bytes) } == annexBNoParameterSets, "\(combination)")
            #expect(sizes.reduce(0, +) == avcc.count && sizes.count == builder.pictures.count, "\(combination)")
            let parsed = try AVCDecoderConfigurationRecord(parsing: record.serialized())
            #expect(parsed.nalUnitLengthSize == lengthSize && parsed.profileIndication == combination.profile, "\(combination)")
            #expect(parsed.sequenceParameterSets.map { Array($0.bytes) } == [Array(spsUnit.bytes)], "\(combination)")
            #expect((parsed.highProfileExtension != nil) == (combination.profile >= 100), "\(combination)")
        }
    }

    static var hasFFmpeg: Bool { FFmpeg.isPresent }

    /// Every combination of one profile, concatenated into one Annex-B stream (each starts with
    /// its own SPS and PPS), traced by FFmpeg once and compared element by element.
    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg"), arguments: profiles)
    func tracesLikeFFmpeg(profile: UInt8) throws {
        let combinations = BuilderCombination.all(profile: profile)
        var stream: [UInt8] = []
        var owner: [Int] = []  // combination index of every NAL unit
        for (i, combination) in combinations.enumerated() {
            let built = try combination.build().annexB()
            owner += Array(repeating: i, count: try AnnexB.split(built).count)
            stream += built
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("builder-\(profile)-\(getpid()).264").path
        try Data(stream).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = try FFmpeg.traceHeaders(path)
        let ours = try Self.ourTrace(stream)
        #expect(reference.count == ours.count, "profile \(profile): NAL unit count")
        var mismatches = 0
        for (i, (r, o)) in zip(reference, ours).enumerated() where r != o {
            mismatches += 1
            guard mismatches <= 3 else { break }
            let j = (0..<min(r.count, o.count)).first { r[$0] != o[$0] } ?? min(r.count, o.count)
            Issue.record("\(combinations[owner[i]]) NAL #\(i) element #\(j): ffmpeg \(j < r.count ? "\(r[j])" : "-") ours \(j < o.count ? "\(o[j])" : "-")")
        }
        #expect(mismatches == 0)
    }

    /// Every CAVLC combination of one profile that starts with an IDR, concatenated, and two that
    /// start with a recovery point, alone (FFmpeg drops pictures of a sequence that starts
    /// without an IDR after another sequence): FFmpeg decodes each with `-err_detect explode`
    /// without a message, one frame per frame or field pair (P/B slices all skipped, I/SI
    /// slices I_PCM).
    @Test(.enabled(if: hasFFmpeg, "needs ffmpeg"), arguments: profiles)
    func cavlcStreamsDecodeInFFmpeg(profile: UInt8) throws {
        let cavlc = BuilderCombination.all(profile: profile).filter { !$0.cabac }
        let recovery = cavlc.filter(\.recoveryPointStart)
        let groups = [cavlc.filter { !$0.recoveryPointStart }] + [recovery.first, recovery.last { $0.structure == .fields }].compactMap { $0.map { [$0] } }
        for (g, group) in groups.enumerated() {
            var stream: [UInt8] = []
            var frames = 0
            for combination in group {
                let built = try combination.build().annexB()
                frames += FixtureFactsTests.frameCount(AccessUnits.assemble(annexB: built[...]).accessUnits, decodable: true)
                stream += built
            }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("builder-decode-\(profile)-\(g)-\(getpid()).264").path
            try Data(stream).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let r = try FFmpeg.ffmpeg(["-v", "error", "-err_detect", "+explode", "-f", "h264", "-i", path, "-f", "framemd5", "-"])
            let err = r.stderr
            #expect(r.succeeded, "ffmpeg exit \(r.status)")
            let decoded = FFmpeg.frameMD5s(output: r.output).count
            let what = group.count == 1 ? "\(group[0])" : "profile \(profile), \(group.count) IDR-start streams"
            #expect(err == "", "\(what)")
            #expect(decoded == frames, "\(what)")
        }
    }

    /// Our trace of every NAL unit: `NALUnitTrace`, and `SEI.trace` for SEI payloads.
    static func ourTrace(_ stream: [UInt8]) throws -> [[FFmpeg.TraceElement]] {
        var store = ParameterSetStore()
        return try AnnexB.split(stream).map { nal in
            var elements: [TraceElement]
            if nal.type == .sei {
                elements = []
                try SEI.trace(nal, context: store, into: &elements)
            } else {
                let result = NALUnitTrace.trace(nal, store: &store)
                if let error = result.error { throw error }
                elements = result.elements
            }
            return elements.flatMap(\.expanded).map { FFmpeg.TraceElement(position: $0.bitPosition, name: $0.name, value: $0.value) }
        }
    }

    @Test func scriptParsesEveryModifier() throws {
        let pictures = try StreamBuilder.pictures(script: "I!~x2 P@-4^1#3 B/b* SP/t SI")
        #expect(pictures.map(\.kind) == [.i, .p, .b, .sp, .si])
        #expect(pictures[0].idr && pictures[0].recoveryPoint != nil && pictures[0].sliceCount == 2)
        #expect(pictures[1].poc == -4 && pictures[1].nalRefIdc == 1 && pictures[1].frameNum == 3)
        #expect(pictures[2].structure == .bottomField && pictures[2].sliceTypeAllSame)
        #expect(pictures[3].structure == .topField)
        for bad in ["X", "I?", "P@", "I^4", "B/x", "Ix0"] {
            #expect(throws: H264Error(.invalidArgument, "")) { try StreamBuilder.pictures(script: bad) }
        }
    }

    @Test func invalidRequestsAreTypedErrors() throws {
        var builder = try StreamBuilder(.init(width: 64, height: 48))
        #expect(throws: H264Error(.invalidArgument, "")) { try builder.append(.init(.p, idr: true)) }
        #expect(throws: H264Error(.invalidArgument, "")) { try builder.append(.init(.i, structure: .topField)) }
        #expect(throws: H264Error(.invalidArgument, "")) { try builder.append(.init(.i, sliceCount: 13)) }
        #expect(throws: H264Error(.invalidArgument, "")) { try StreamBuilder(.init(width: 63, height: 48)) }
        var interlaced = StreamBuilder.SequenceOptions(width: 64, height: 50)
        interlaced.frameMbsOnly = false
        #expect(throws: H264Error(.invalidArgument, "")) { try StreamBuilder(interlaced) }
        var type2 = StreamBuilder.SequenceOptions(width: 64, height: 48)
        type2.pocType = 2
        var b2 = try StreamBuilder(type2)
        try b2.append(.init(.i, idr: true))
        #expect(throws: H264Error(.invalidArgument, "")) { try b2.append(.init(.p, poc: 7)) }
        try b2.append(.init(.p, poc: 2))
    }

    @Test func automaticFrameNumAndPOC() throws {
        var options = StreamBuilder.SequenceOptions(width: 32, height: 32)
        options.frameMbsOnly = false
        var builder = try StreamBuilder(options)
        try builder.append(script: "I!/t P/b P/t P/b B/t^0 B/b^0 P/t P/b I!/t I/b")
        #expect(builder.pictures.map { $0.sliceHeaders[0].frameNum } == [0, 0, 1, 1, 2, 2, 2, 2, 0, 0])
        #expect(builder.pictures.map(\.poc.value) == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1])
        #expect(builder.pictures.map { $0.sliceHeaders[0].idrPicID } == [0, 0, 0, 0, 0, 0, 0, 0, 1, 0])
    }

    /// A stream built to a sink (what `h264 build-stream` does): each access unit reaches the
    /// sink once, in order, with the bytes the kept form has (SPS and PPS in the first, repeated
    /// at IDRs when asked), and the builder holds none of them: nothing kept, no held bytes,
    /// whatever the number of pictures. A failed picture reaches no sink.
    @Test func sinkFormHoldsNoAccessUnit() throws {
        var options = StreamBuilder.SequenceOptions(width: 256, height: 128, profileIDC: 100)
        options.frameMbsOnly = false
        let script = "I!x2 P@4 B@2/t B@3/b~ P@8 I! P"
        for parameterSetsAtEveryIDR in [false, true] {
            var kept = try StreamBuilder(options)
            kept.accessUnitDelimiters = true
            kept.parameterSetsAtEveryIDR = parameterSetsAtEveryIDR
            var streamed = kept
            try kept.append(script: script)
            #expect(kept.heldByteCount == kept.annexB().count - 4 * kept.accessUnits.reduce(0) { $0 + $1.count })

            var received: [[NALUnit]] = []
            var largest = 0
            for picture in try StreamBuilder.pictures(script: script) {
                try streamed.append(picture) { accessUnit in
                    received.append(accessUnit)
                    largest = max(largest, accessUnit.reduce(0) { $0 + $1.bytes.count })
                }
                #expect(streamed.accessUnits.isEmpty && streamed.pictures.isEmpty && streamed.heldByteCount == 0)
                #expect(streamed.accessUnitCount == received.count)
            }
            #expect(received.map { $0.map { Array($0.bytes) } } == kept.accessUnits.map { $0.map { Array($0.bytes) } },
                    "every IDR: \(parameterSetsAtEveryIDR)")
            #expect(largest == kept.accessUnits.map { $0.reduce(0) { $0 + $1.bytes.count } }.max(), "one access unit at a time")

            // Length-prefixed samples from the sink form equal the kept form's, record included.
            let (samples, sizes, record) = try kept.avcc(lengthSize: .two)
            var fromSink: [UInt8] = []
            for au in received { try StreamBuilder.appendAVCCSample(au, lengthSize: .two, to: &fromSink) }
            #expect(fromSink == samples && sizes.count == received.count)
            #expect(try streamed.configuration(lengthSize: .two).serialized() == record.serialized())
        }
        // A picture that cannot be built reaches no sink and changes nothing.
        var builder = try StreamBuilder(.init(width: 64, height: 48))
        var calls = 0
        #expect(throws: H264Error(.invalidArgument, "")) { try builder.append(.init(.p, idr: true)) { _ in calls += 1 } }
        #expect(calls == 0 && builder.accessUnitCount == 0)
    }
}
