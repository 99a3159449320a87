import Testing
import TestSupport
@testable import H264
import H264Fixtures

/// Heap allocations of the access-unit layer in steady state, counted as the benchmark executable counts them.
/// Only an optimised build counts what the code allocates (an unoptimised one also allocates
/// temporaries the optimiser removes): the release pass of `.ci/run`.
@Suite(.enabled(if: Allocations.isOptimizedBuild, Allocations.optimizedBuildOnly))
struct AccessUnitAllocationTests {
    /// The Annex-B fixtures in a steady state: not resolutionChange (its SPS changes: parsed, and
    /// kept in a format change) nor missingPPS (no slice header parses: every access unit
    /// carries a diagnostic, an error value, which allocates).
    static let fixtures = Fixture.allCases.filter {
        $0.facts.kind == .annexB && ![.leadingGarbage, .resolutionChange, .missingPPS].contains($0)
    }

    /// The allocations of parsing the slice headers of `one` into one kept header (their
    /// parameter sets ingested first, one warm-up pass grows the header's lists), and of looking
    /// up the recovery point SEI messages.
    static func sliceHeaderAllocations(_ one: [UInt8]) throws -> Int {
        let units = try AnnexB.split(one)
        var store = ParameterSetStore()
        for unit in units where unit.type == .sps || unit.type == .pps { _ = try? store.ingest(unit) }
        let slices = units.filter { $0.type == .slice || $0.type == .idrSlice }
        var header = SliceHeader()
        var parsed = 0
        func pass() {
            for unit in slices {
                if (try? SliceHeader.parse(unit, context: store, into: &header)) != nil { parsed &+= Int(header.frameNum) &+ 1 }
            }
        }
        pass()
        let n = Allocations.count { pass() }
        #expect(parsed > 0)
        let seis = units.filter { $0.type == .sei }
        var found = 0
        let m = Allocations.count {
            for unit in seis {
                found &+= RecoveryPointLookup.recoveryFrameCount(in: unit) ?? 0
            }
        }
        return n + m + (found < 0 ? 1 : 0)
    }

    /// The allocations of parsing the access units of one copy of `one` after five copies
    /// warmed the parser's buffers, through `next(into:)` when `reusing`, else `next()`.
    static func steadyState(_ one: [UInt8], reusing: Bool) throws -> (accessUnits: Int, allocations: Int) {
        let perCopy = AccessUnits.assemble(annexB: one[...]).accessUnits.count
        let bytes = Array([[UInt8]](repeating: one, count: 7).joined())  // one chunk: the splitter never copies a NAL unit
        var parser = AccessUnitParser()
        parser.append(bytes[...])
        parser.finish()
        var au = AccessUnit()
        var n = 0
        // Five copies grow the buffers: each recycled array grows once to the largest access
        // unit it meets, and the arrays take turns.
        while n < 5 * perCopy, try parser.next(into: &au) { n += 1 }
        var counted = 0
        var failed = false
        // No #expect inside: its own allocations would count.
        let allocations = Allocations.count {
            while counted < perCopy {
                do throws(H264Error) {
                    if reusing {
                        guard try parser.next(into: &au) else { break }
                    } else {
                        guard let next = try parser.next() else { break }
                        au = next
                    }
                    counted += 1
                } catch {
                    failed = true
                    break
                }
            }
        }
        #expect(!failed)
        #expect(counted == perCopy)
        return (counted, allocations)
    }

    /// The allocations of parsing the access units of one copy of `one` through
    /// `next(into:)` after ten copies warmed the parser's buffers, the input handed over in
    /// `chunk`-byte chunks: NAL units that span chunks are accumulated in the splitter's
    /// buffers, which the access units hold until they are handed back. (Five copies leave a
    /// growth in two fixtures, slices4 and truncated: the buffers take turns and each grows once
    /// to the largest NAL unit it meets.)
    static func steadyStateChunked(_ one: [UInt8], chunk: Int) -> (accessUnits: Int, allocations: Int) {
        let perCopy = AccessUnits.assemble(annexB: one[...]).accessUnits.count
        let bytes = Array([[UInt8]](repeating: one, count: 12).joined())
        var parser = AccessUnitParser()
        var au = AccessUnit()
        var position = 0
        var failed = false
        // No #expect inside: its own allocations would count.
        func parse(_ count: Int) -> Int {
            var n = 0
            while n < count {
                if parser.needsInput {
                    guard position < bytes.count else { break }
                    let end = Swift.min(position &+ chunk, bytes.count)
                    parser.append(bytes[position..<end])
                    position = end
                }
                do throws(H264Error) {
                    if try parser.next(into: &au) { n &+= 1 }
                } catch {
                    failed = true
                    break
                }
            }
            return n
        }
        _ = parse(10 * perCopy)
        var counted = 0
        let allocations = Allocations.count { counted = parse(perCopy) }
        #expect(!failed)
        #expect(counted == perCopy)
        return (counted, allocations)
    }

    /// NAL units that span chunks (every fixture in 100-byte chunks) are accumulated in
    /// buffers the splitter reuses once the access units holding them are handed back: no
    /// allocation per access unit either.
    @Test(.enabled(if: Allocations.isAvailable, "a sanitizer build: the sanitizer owns the allocator"),
          arguments: fixtures)
    func spanningNALUnitsAllocateNothingPerAccessUnit(_ fixture: Fixture) {
        let result = Self.steadyStateChunked(fixture.bytes(), chunk: 100)
        #expect(result.allocations == 0, "\(fixture): \(result.allocations) allocations in \(result.accessUnits) access units")
    }

    /// `AccessUnitParser.next(into:)` allocates nothing per access unit once its buffers have
    /// grown (parameter sets repeated with the same bytes included: each copy of the stream
    /// resends them; slice headers parsed into the assembler's own header; recovery points
    /// read without an SEI parse); `next()` allocates the arrays of every access unit, which
    /// the count sees. Parsing the slice headers into one header and looking the recovery
    /// points up allocate nothing either.
    @Test(.enabled(if: Allocations.isAvailable, "a sanitizer build: the sanitizer owns the allocator"),
          arguments: fixtures)
    func reusingAllocatesNothingPerAccessUnit(_ fixture: Fixture) throws {
        let one = fixture.bytes()
        let reused = try Self.steadyState(one, reusing: true)
        #expect(reused.allocations == 0, "\(fixture): \(reused.allocations) allocations in \(reused.accessUnits) access units")
        let headers = try Self.sliceHeaderAllocations(one)
        #expect(headers == 0, "\(fixture): \(headers) allocations parsing slice headers into one and looking up recovery points")
        let copied = try Self.steadyState(one, reusing: false)
        #expect(copied.allocations > reused.allocations, "\(fixture): \(copied.allocations) allocations in \(copied.accessUnits) access units")
    }
}
