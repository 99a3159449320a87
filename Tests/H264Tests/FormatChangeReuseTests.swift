import Testing
import TestSupport
@testable import H264
import H264Fixtures

/// A caller that keeps the format changes it receives from `AccessUnitParser.next(into:)` keeps
/// them intact: the parser reuses the storage of those handed back that nothing else holds,
/// never of one still held.
struct FormatChangeReuseTests {
    /// What a format change said when it was received.
    struct Snapshot: Equatable {
        let changed: [[UInt8]]
        let sps: [[UInt8]]
        let pps: [[UInt8]]
        let configuration: [UInt8]?

        init(_ change: FormatChange) {
            changed = change.changedParameterSets.map { Array($0.bytes) }
            sps = change.sequenceParameterSets.map { Array($0.bytes) }
            pps = change.pictureParameterSets.map { Array($0.bytes) }
            configuration = try? change.decoderConfiguration?.serialized()
        }
    }

    /// Every `keepEvery`-th format change kept (the others handed back with their access
    /// units), over several copies of a stream that changes its SPS every picture or every
    /// third: the kept ones read as they did when received, and every format change reads as
    /// the batch assembler's.
    @Test(arguments: [Fixture.mainCABACBFrames, .slices4], [1, 3])
    func keptFormatChangesKeepTheirContents(_ fixture: Fixture, every: Int) throws {
        let one = try AlternatingSPS.stream(fixture, versions: 3, every: every)
        // Enough copies for more format changes than two tables serve.
        let perCopy = AccessUnits.assemble(annexB: one[...]).accessUnits.filter { $0.formatChange != nil }.count
        try #require(perCopy > 0)
        let bytes = Array([[UInt8]](repeating: one, count: 2 * FormatChange.maximumChainLength / perCopy + 3).joined())
        let expected = AccessUnits.assemble(annexB: bytes[...]).accessUnits.compactMap { $0.formatChange.map(Snapshot.init) }
        try #require(expected.count > 2 * FormatChange.maximumChainLength)
        for keepEvery in [1, 2, 5] {
            var parser = AccessUnitParser()
            parser.append(bytes[...])
            parser.finish()
            var au = AccessUnit()
            var kept: [(index: Int, change: FormatChange, snapshot: Snapshot)] = []
            var received: [Snapshot] = []
            var records: Set<ObjectIdentifier> = []
            var reused = 0
            while try parser.next(into: &au) {
                guard let change = au.formatChange else { continue }
                if !records.insert(ObjectIdentifier(change.record)).inserted { reused += 1 }
                let snapshot = Snapshot(change)
                if received.count % keepEvery == 0 { kept.append((received.count, change, snapshot)) }
                received.append(snapshot)
            }
            #expect(received == expected, "\(fixture), keeping every \(keepEvery)")
            for k in kept {
                #expect(Snapshot(k.change) == k.snapshot, "\(fixture): format change \(k.index) changed after it was received")
                #expect(k.snapshot == expected[k.index])
            }
            // The storage of those handed back is reused (an unoptimised build may keep a
            // temporary reference that makes them look shared).
            if keepEvery > 1 && Allocations.isOptimizedBuild { #expect(reused > 0, "\(fixture), keeping every \(keepEvery)") }
            if keepEvery == 1 { #expect(reused == 0, "\(fixture): a record still held was reused") }
        }
    }
}
