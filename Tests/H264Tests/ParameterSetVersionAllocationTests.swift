import Testing
import TestSupport
@testable import H264
import H264Fixtures

/// Parameter sets that switch back to bytes seen before under the same id are restored from the
/// versions a `ParameterSetStore` keeps: no parse, and no allocation, in the store and in the
/// access-unit layer (which keeps the store's bytes of the set instead of a copy). Counted as
/// the benchmark executable counts allocations (``Allocations``), in an optimised build only
/// (the release pass of `.ci/run`).
@Suite(.enabled(if: Allocations.isOptimizedBuild, Allocations.optimizedBuildOnly))
struct ParameterSetVersionAllocationTests {
    /// `fixture`'s stream with a PPS before every picture, alternating between its own PPS and
    /// `versions - 1` others with the same id (another `pic_init_qs_minus26`: the slices
    /// parse alike under each).
    static func alternatingPPS(_ fixture: Fixture, versions: Int) throws -> [UInt8] {
        let units = try AnnexB.split(fixture.bytes())
        let sps = try #require(units.first { $0.type == .sps })
        let ppsUnit = try #require(units.first { $0.type == .pps })
        let store = ParameterSetStore(sps: try SequenceParameterSet(rbsp: sps.rbsp))
        let pps = try PictureParameterSet(rbsp: ppsUnit.rbsp, context: store)
        let header = NALUnitHeader(ppsUnit)
        var variants = [ppsUnit]
        for i in 1..<versions {
            var other = pps
            other.picInitQsMinus26 = Int8((Int(pps.picInitQsMinus26) + 26 + i) % 52 - 26)
            variants.append(try other.nalUnit(header: header, context: store))
        }
        var out: [NALUnit] = []
        var next = 0
        for unit in units where unit.type != .pps {
            if unit.type == .slice || unit.type == .idrSlice, unit.sliceHeaderLeadingElements().firstMbInSlice == 0 {
                out.append(variants[next % versions])
                next += 1
            }
            out.append(unit)
        }
        #expect(next >= 2 * versions, "\(fixture): every version comes back")
        return AnnexB.write(out)
    }

    /// The store alone: ingesting SPS and PPS that alternate between versions allocates nothing
    /// once every version was parsed once, and leaves the sets a parse would.
    @Test func aStoreRestoresSwitchingSetsWithoutAllocating() throws {
        let units = try AnnexB.split(Self.alternatingPPS(.baselineCAVLC, versions: 3)).filter { $0.type == .sps || $0.type == .pps }
        var store = ParameterSetStore()
        for unit in units { try store.ingest(unit) }  // every version parsed once
        var restored = 0
        let allocations = Allocations.count {
            for unit in units where (try? store.ingestNoting(unit)) == .restored { restored += 1 }
        }
        #expect(restored > units.count / 2, "\(restored) of \(units.count) restored")
        #expect(allocations == 0, "\(allocations) allocations ingesting \(units.count) parameter sets")
        var reference = ParameterSetStore()
        for unit in units { try reference.ingest(unit) }
        #expect(store.pps(id: 0) == reference.pps(id: 0) && store.sps(id: 0) == reference.sps(id: 0))
    }

    /// `AccessUnitParser.next(into:)` allocates nothing per access unit on a stream whose PPS
    /// switches between versions before every picture (a change of PPS alone is no format
    /// change: no format-change record is made).
    @Test(.enabled(if: Allocations.isAvailable, "a sanitizer build: the sanitizer owns the allocator"),
          arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .slices4])
    func accessUnitsWithSwitchingPPSAllocateNothing(_ fixture: Fixture) throws {
        let one = try Self.alternatingPPS(fixture, versions: 3)
        let reused = try AccessUnitAllocationTests.steadyState(one, reusing: true)
        #expect(reused.allocations == 0, "\(fixture): \(reused.allocations) allocations in \(reused.accessUnits) access units")
    }
}
