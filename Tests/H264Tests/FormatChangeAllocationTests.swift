import Testing
import TestSupport
@testable import H264
import H264Fixtures

/// Streams whose SPS changes every few pictures: each change makes a `FormatChange`, whose
/// storage `AccessUnitParser.next(into:)` takes back with the access unit and reuses once
/// nothing else holds it.
enum AlternatingSPS {
    /// `fixture`'s stream with its SPS and PPS sent again before every `every`-th picture, the
    /// SPS alternating between `versions` versions with the same id (another `level_idc`: the
    /// slices parse alike under each): a format change every `every` pictures.
    static func stream(_ fixture: Fixture, versions: Int, every: Int) throws -> [UInt8] {
        let units = try AnnexB.split(fixture.bytes())
        let spsUnit = try #require(units.first { $0.type == .sps })
        let ppsUnit = try #require(units.first { $0.type == .pps })
        let sps = try SequenceParameterSet(rbsp: spsUnit.rbsp)
        let header = NALUnitHeader(spsUnit)
        var variants = [spsUnit]
        for i in 1..<versions {
            var other = sps
            other.levelIDC = UInt8((Int(sps.levelIDC) + 10 * i) % 60 + 10)
            variants.append(try other.nalUnit(header: header, context: .empty))
        }
        var out: [NALUnit] = []
        var pictures = 0
        for unit in units where unit.type != .sps && unit.type != .pps {
            if unit.type == .slice || unit.type == .idrSlice, unit.sliceHeaderLeadingElements().firstMbInSlice == 0 {
                if pictures % every == 0 {
                    out.append(variants[(pictures / every) % versions])
                    out.append(ppsUnit)
                }
                pictures += 1
            }
            out.append(unit)
        }
        #expect(pictures / every >= 2, "\(fixture): the SPS changes within the stream")
        return AnnexB.write(out)
    }
}

/// No allocation per access unit on a stream whose SPS changes every picture or every third:
/// the format changes' storage is reused once handed back. Counted as the benchmark
/// executable counts allocations (``Allocations``), in an optimised build only (the release pass of `.ci/run`).
@Suite(.enabled(if: Allocations.isOptimizedBuild, Allocations.optimizedBuildOnly))
struct FormatChangeAllocationTests {
    @Test(.enabled(if: Allocations.isAvailable, "a sanitizer build: the sanitizer owns the allocator"),
          arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .slices4], [1, 3])
    func formatChangesAllocateNothingOnceHandedBack(_ fixture: Fixture, every: Int) throws {
        let one = try AlternatingSPS.stream(fixture, versions: 3, every: every)
        let (units, _) = AccessUnits.assemble(annexB: one[...])
        let changes = units.filter { $0.formatChange != nil }.count
        #expect(changes >= units.count / every - 2, "\(fixture): \(changes) format changes in \(units.count) access units")
        let reused = try AccessUnitAllocationTests.steadyState(one, reusing: true)
        #expect(reused.allocations == 0, "\(fixture), every \(every): \(reused.allocations) allocations in \(reused.accessUnits) access units")
    }
}
