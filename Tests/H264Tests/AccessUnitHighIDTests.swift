import Testing
import TestSupport
import H264Fixtures
import H264

/// The assembler's tables by parameter-set id grow only up to the highest id used; a stream
/// whose SPS and PPS ids are the highest allowed must be assembled as the same stream with
/// small ids is: checked on fixtures renumbered to SPS 31 - k and PPS 255 - k, with a new
/// parser's first use, in small chunks, and over a chain of format changes long enough to start
/// a new full table.
@Suite struct AccessUnitHighIDTests {
    static func spsID(_ k: Int) -> Int { 31 - k }
    static func ppsID(_ k: Int) -> Int { 255 - k }

    /// `bytes` with every SPS id k made 31 - k and every PPS id k made 255 - k (in the
    /// parameter sets and the slice headers); other NAL units are copied.
    static func renumbered(_ bytes: [UInt8]) throws -> [UInt8] {
        var original = ParameterSetStore()
        var renumbered = ParameterSetStore()
        var out: [UInt8] = []
        var splitter = AnnexB.Splitter(bytes[...])
        while let nal = try splitter.next() {
            let rbsp = nal.rbsp
            var rewritten: [UInt8]
            switch nal.type {
            case .sps:
                _ = try original.ingest(nal)
                var sps = try SequenceParameterSet(rbsp: rbsp)
                sps.id = UInt8(spsID(Int(sps.id)))
                renumbered.insert(sps)
                rewritten = try sps.rbsp()
            case .pps:
                _ = try original.ingest(nal)
                var pps = try PictureParameterSet(rbsp: rbsp, context: original)
                pps.id = UInt8(ppsID(Int(pps.id)))
                pps.spsID = UInt8(spsID(Int(pps.spsID)))
                renumbered.insert(pps)
                rewritten = try pps.rbsp(context: renumbered)
            case .slice, .idrSlice:
                var (header, bits) = try SliceHeader.parse(rbsp: rbsp, nalUnitHeader: NALUnitHeader(nal), context: original)
                header.ppsID = UInt8(ppsID(Int(header.ppsID)))
                var w = try header.write(context: renumbered)
                w.appendBits(of: rbsp, from: bits)
                rewritten = w.bytes
            default:
                out += [0, 0, 0, 1] + nal.bytes
                continue
            }
            out += [0, 0, 0, 1] + nal.bytes.prefix(nal.headerLength)
            EmulationPrevention.appendEBSP(of: rewritten, to: &out)
        }
        return out
    }

    /// What an access unit says, ids aside.
    struct Summary: Equatable {
        var types: [NALUnitType]
        var flags: AccessUnitFlags
        var sliceTypes: [SliceType.Kind]
        var frameNum: Int
        var structure: PictureStructure
        var poc: Int64?
        var pts: Int64?
        var dts: Int64?
        var diagnostics: [H264Error.Code]
        var startsPOCPeriod: Bool
        /// The ids of the format change's changed, SPS and PPS sets.
        var formatChange: [[Int]]?

        init(_ au: AccessUnit, spsID: (Int) -> Int = { $0 }, ppsID: (Int) -> Int = { $0 }) {
            types = au.nalTypes
            flags = au.flags
            sliceTypes = au.sliceTypes
            frameNum = au.frameNum
            structure = au.structure
            poc = au.poc
            pts = au.pts
            dts = au.dts
            diagnostics = au.diagnostics.map(\.code)
            startsPOCPeriod = au.startsPOCPeriod
            formatChange = au.formatChange.map { change in
                func id(_ u: NALUnit) -> Int { u.type == .sps ? spsID(u.parameterSetID ?? -1) : ppsID(u.parameterSetID ?? -1) }
                return [change.changedParameterSets.map(id), change.sequenceParameterSets.map(id), change.pictureParameterSets.map(id)]
            }
        }
    }

    /// The access units of a new parser fed `bytes` in chunks of `chunk` bytes, then finished,
    /// and the codes of the errors it threw on the way (in order).
    static func streamed(_ bytes: [UInt8], chunk: Int) -> (accessUnits: [AccessUnit], errors: [H264Error.Code]) {
        var parser = AccessUnitParser()
        var out: [AccessUnit] = []
        var errors: [H264Error.Code] = []
        // Drains what the parser has ready; a parser that kept yielding past one event per
        // input byte would be a bug, reported as an error instead of a hang.
        func drain() {
            while out.count + errors.count <= bytes.count {
                do throws(H264Error) {
                    guard let au = try parser.next() else { return }
                    out.append(au)
                } catch {
                    errors.append(error.code)
                }
            }
            Issue.record("the access-unit parser did not stop yielding")
        }
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            parser.append(bytes[start..<min(bytes.count, start + chunk)])
            drain()
        }
        parser.finish()
        drain()
        return (out, errors)
    }

    static let fixtures: [Fixture] = [.baselineCAVLC, .mainCABACBFrames, .paffFields, .pocType1, .resolutionChange]

    @Test(arguments: fixtures)
    func highIDsAssembleAsLowIDs(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let high = try Self.renumbered(bytes)
        #expect(high != bytes)
        let (low, _) = AccessUnits.assemble(annexB: bytes[...])
        try #require(!low.isEmpty)
        // The expected: the small-id stream's access units, its ids renumbered.
        let expected = low.map { Summary($0, spsID: Self.spsID, ppsID: Self.ppsID) }
        let (batch, _) = AccessUnits.assemble(annexB: high[...])
        #expect(batch.map { Summary($0) } == expected, "batch")
        for chunk in [7, 1000] {
            // A new parser's first use, the stream in chunks.
            let low = Self.streamed(bytes, chunk: chunk)
            let highIDs = Self.streamed(high, chunk: chunk)
            #expect(low.accessUnits.count == expected.count, "chunk \(chunk)")
            #expect(highIDs.accessUnits.map { Summary($0) } == low.accessUnits.map { Summary($0, spsID: Self.spsID, ppsID: Self.ppsID) },
                    "chunk \(chunk)")
            #expect(highIDs.errors == low.errors, "chunk \(chunk): the same errors at the highest ids")
        }
    }

    /// More format changes than one chain holds (``FormatChange/maximumChainLength``): each
    /// change's SPS and PPS in force are those of the change before with its changed sets
    /// applied, at the highest ids as at the lowest.
    @Test(arguments: [false, true])
    func formatChangesPastAChainAreTheSetsInForce(highIDs: Bool) throws {
        let one = Fixture.resolutionChange.bytes()
        let piece = highIDs ? try Self.renumbered(one) : one
        let bytes = Array([[UInt8]](repeating: piece, count: FormatChange.maximumChainLength / 2 + 4).joined())
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        let changes = units.compactMap(\.formatChange)
        try #require(changes.count > FormatChange.maximumChainLength + 2)
        var sps: [Int: [UInt8]] = [:]
        var pps: [Int: [UInt8]] = [:]
        for (n, change) in changes.enumerated() {
            for unit in change.changedParameterSets {
                let id = try #require(unit.parameterSetID)
                if unit.type == .sps { sps[id] = Array(unit.bytes) } else { pps[id] = Array(unit.bytes) }
            }
            #expect(change.sequenceParameterSets.map { Array($0.bytes) } == sps.keys.sorted().map { sps[$0]! }, "change \(n)")
            #expect(change.pictureParameterSets.map { Array($0.bytes) } == pps.keys.sorted().map { pps[$0]! }, "change \(n)")
            #expect(change.sequenceParameterSets.allSatisfy { ($0.parameterSetID ?? -1) == (highIDs ? 31 : 0) }, "change \(n)")
            #expect(change.decoderConfiguration != nil, "change \(n)")
        }
    }
}
