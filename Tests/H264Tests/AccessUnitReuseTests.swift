import Testing
import TestSupport
import H264Fixtures
@testable import H264

/// Everything an access unit says, as comparable values: NAL unit bytes and every field.
private struct Summary: Equatable, CustomStringConvertible {
    let nalUnits: [[UInt8]]
    let index: Int
    let byteOffset: Int?
    let flags: AccessUnitFlags
    let sliceTypes: [SliceType.Kind]
    let frameNum: Int
    let structure: PictureStructure
    let poc: Int64?, pts: Int64?, dts: Int64?, duration: Int64?
    let timeBase: TimeBase?
    let changedParameterSets: [[UInt8]]?
    let startsPOCPeriod: Bool
    let diagnostics: [H264Error.Code]
    let droppedDiagnosticCount: Int

    init(_ au: AccessUnit) {
        nalUnits = au.nalUnits.map { Array($0.bytes) }
        index = au.index
        byteOffset = au.byteOffset
        flags = au.flags
        sliceTypes = au.sliceTypes
        frameNum = au.frameNum
        structure = au.structure
        poc = au.poc; pts = au.pts; dts = au.dts; duration = au.duration
        timeBase = au.timeBase
        changedParameterSets = au.formatChange?.changedParameterSets.map { Array($0.bytes) }
        startsPOCPeriod = au.startsPOCPeriod
        diagnostics = au.diagnostics.map(\.code)
        droppedDiagnosticCount = au.droppedDiagnosticCount
    }

    var description: String { "AU \(index) (\(nalUnits.count) NAL units, poc \(String(describing: poc)), pts \(String(describing: pts)))" }
}

/// The access units of `bytes` through ``AccessUnitParser/next()`` and through
/// ``AccessUnitParser/next(into:)`` (chunks of `chunk` bytes), and the errors of each.
private func bothWays(_ bytes: [UInt8], chunk: Int, timing: TimestampOptions = .init())
    -> (copied: [Summary], reused: [Summary], copiedErrors: [H264Error.Code], reusedErrors: [H264Error.Code]) {
    var copied: [Summary] = [], reused: [Summary] = []
    var copiedErrors: [H264Error.Code] = [], reusedErrors: [H264Error.Code] = []
    var a = AccessUnitParser(timing: timing, leadingData: .skip)
    var b = AccessUnitParser(timing: timing, leadingData: .skip)
    var au = AccessUnit()
    var i = 0
    var finished = false
    while true {
        if i < bytes.count {
            let end = min(i + chunk, bytes.count)
            a.append(bytes[i..<end])
            b.append(bytes[i..<end])
            // A chunk not yet parsed: no input needed (the flag follows every call).
            #expect(!a.needsInput && !b.needsInput, "needsInput after append at \(i)")
            i = end
        } else {
            a.finish()
            b.finish()
            finished = true
        }
        while true {
            do { guard let unit = try a.next() else { break }; copied.append(Summary(unit)) } catch { copiedErrors.append(error.code) }
        }
        #expect(a.needsInput || finished, "drained: input needed")
        while true {
            do {
                guard try b.next(into: &au) else {
                    #expect(au.nalUnits.isEmpty && au.index == -1, "an empty access unit when there is none")
                    break
                }
                reused.append(Summary(au))
            } catch {
                reusedErrors.append(error.code)
            }
        }
        #expect(b.needsInput || finished, "drained: input needed")
        if finished { break }
    }
    return (copied, reused, copiedErrors, reusedErrors)
}

@Suite struct AccessUnitReuseTests {
    static let annexBFixtures = Fixture.allCases.filter { $0.facts.kind == .annexB }

    /// `next(into:)` yields exactly what `next()` yields, field by field, for any chunking; and
    /// the NAL units, POC, flags and slice types of the batch API.
    @Test(arguments: annexBFixtures)
    func reusingGivesTheSameAccessUnits(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let (batch, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
        for chunk in [1, 188, 1 << 20] {
            let r = bothWays(bytes, chunk: chunk)
            #expect(r.reused == r.copied, "\(fixture) chunk \(chunk)")
            #expect(r.reusedErrors == r.copiedErrors, "\(fixture) chunk \(chunk)")
            #expect(r.reused.map(\.nalUnits) == batch.map { $0.nalUnits.map { Array($0.bytes) } }, "\(fixture) chunk \(chunk)")
            #expect(r.reused.map(\.poc) == batch.map(\.poc), "\(fixture)")
            #expect(r.reused.map(\.flags) == batch.map(\.flags), "\(fixture)")
            #expect(r.reused.map(\.sliceTypes) == batch.map(\.sliceTypes), "\(fixture)")
        }
        // With the batch API's delay measured first, the timestamps are the batch API's too.
        var probe = AccessUnitParser(timing: .init(presentationDelay: 0), leadingData: .skip)
        probe.append(bytes[...])
        probe.finish()
        while (try? probe.next()) != nil {}
        let r = bothWays(bytes, chunk: 1500, timing: .init(presentationDelay: probe.requiredPresentationDelay))
        #expect(r.reused.map(\.pts) == batch.map(\.pts), "\(fixture)")
        #expect(r.reused.map(\.dts) == batch.map(\.dts), "\(fixture)")
    }

    /// The same on every Annex-B stream of the corpus, in 1,500-byte chunks.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: Corpus.annexBStreams)
    func reusingGivesTheSameAccessUnitsOnTheCorpus(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let r = bothWays(bytes, chunk: 1500)
        #expect(r.reused.count > 0, "\(path)")
        #expect(r.reused == r.copied, "\(path)")
        #expect(r.reusedErrors == r.copiedErrors, "\(path)")
        let (batch, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
        #expect(r.reused.map(\.nalUnits) == batch.map { $0.nalUnits.map { Array($0.bytes) } }, "\(path)")
        #expect(r.reused.map(\.flags) == batch.map(\.flags), "\(path)")
        #expect(r.reused.map(\.poc) == batch.map(\.poc), "\(path)")
    }

    /// A copy the caller keeps of a handed-back access unit is not touched by the reuse.
    @Test func aKeptCopyStaysIntact() throws {
        let bytes = Fixture.mainCABACBFrames.bytes()
        var parser = AccessUnitParser()
        parser.append(bytes[...])
        parser.finish()
        var au = AccessUnit()
        var kept: [AccessUnit] = []
        var summaries: [Summary] = []
        while try parser.next(into: &au) {
            kept.append(au)
            summaries.append(Summary(au))
        }
        #expect(kept.count > 3)
        #expect(kept.map(Summary.init) == summaries)
        #expect(au.nalUnits.isEmpty && au.sliceTypes.isEmpty)
    }
}

@Suite struct ParameterSetRepeatTests {
    static func units(_ fixture: Fixture) throws -> [NALUnit] { try AnnexB.split(fixture.bytes()) }

    /// An SPS or PPS received again with the same bytes is recognised, not parsed; a PPS whose
    /// SPS changed in between, or a changed parse mode, is parsed again.
    @Test func aRepeatIsRecognisedAndAChangedDependencyIsNot() throws {
        let all = try Self.units(.baselineCAVLC)
        let sps = try #require(all.first { $0.type == .sps })
        let pps = try #require(all.first { $0.type == .pps })
        var store = ParameterSetStore()
        #expect(try store.ingestNoting(sps) == .stored)
        #expect(try store.ingestNoting(pps) == .stored)
        let parsed = (store.sps(id: 0), store.pps(id: 0))
        #expect(try store.ingestNoting(sps) == .repeated)
        #expect(try store.ingestNoting(pps) == .repeated)
        #expect(store.sps(id: 0) == parsed.0 && store.pps(id: 0) == parsed.1)
        #expect(try store.ingest(pps), "a repeat still counts as stored")
        // Another SPS under the same id (a different level): the PPS naming it is parsed again.
        var other = Array(sps.bytes)
        other[3] = other[3] == 40 ? 41 : 40  // level_idc
        #expect(try store.ingestNoting(NALUnit(other)) == .stored)
        #expect(store.sps(id: 0)?.levelIDC == other[3])
        #expect(try store.ingestNoting(pps) == .stored)
        #expect(try store.ingestNoting(pps) == .repeated)
        // The first SPS again: a change back, restored from the version kept (not parsed), and
        // so is the PPS parsed against it.
        #expect(try store.ingestNoting(sps) == .restored)
        #expect(store.sps(id: 0) == parsed.0)
        #expect(try store.ingestNoting(pps) == .restored)
        #expect(store.pps(id: 0) == parsed.1)
        // A new parse mode parses everything again.
        store.parseMode = .lenient
        #expect(try store.ingestNoting(sps) == .stored)
        #expect(try store.ingestNoting(pps) == .stored)
        // Inserting a value directly forgets the bytes of that id: they are not a repeat, and
        // are stored again from the version kept.
        store.insert(try #require(parsed.1))
        #expect(try store.ingestNoting(pps) == .restored)
        #expect(try store.ingestNoting(pps) == .repeated)
        // Inserting an SPS directly gives it a new generation: the PPS version parsed against
        // the SPS it replaced is not valid with it.
        store.insert(try #require(parsed.0))
        #expect(try store.ingestNoting(pps) == .stored)
    }

    /// A malformed repeat of a stored id is an error every time, and leaves the stored set.
    @Test func aMalformedSetIsNeverARepeat() throws {
        let all = try Self.units(.baselineCAVLC)
        let pps = try #require(all.first { $0.type == .pps })
        let sps = try #require(all.first { $0.type == .sps })
        var store = ParameterSetStore()
        try store.ingest(sps)
        try store.ingest(pps)
        let bad = try NALUnit([pps.bytes.first!])  // header only
        for _ in 0..<2 { #expect(throws: H264Error.self) { try store.ingest(bad) } }
        #expect(try store.ingestNoting(pps) == .repeated)
    }
}
