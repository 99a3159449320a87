import Foundation
import H264Fixtures
import Synchronization
import Testing
@testable import H264

/// Byte chunks as an `AsyncSequence`, the way a socket or a pipe delivers them.
private func chunked(_ bytes: [UInt8], size: Int) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        var i = 0
        while i < bytes.count {
            continuation.yield(Array(bytes[i..<min(i + size, bytes.count)]))
            i += size
        }
        continuation.finish()
    }
}

@Suite struct AsyncParsingTests {
    static let annexBFixtures = Fixture.allCases.filter { $0.facts.kind == .annexB }

    static func leadingData(_ fixture: Fixture) -> AnnexB.LeadingDataPolicy {
        fixture == .leadingGarbage ? .skip : .reject
    }

    @Test(arguments: annexBFixtures)
    func accessUnitsFromChunksEqualTheBatchResult(_ fixture: Fixture) async throws {
        let bytes = fixture.bytes()
        let timing = TimestampOptions(reorderDepth: 16)
        let (batch, batchErrors) = AccessUnits.assemble(annexB: bytes[...], timing: timing, leadingData: Self.leadingData(fixture))
        try #require(!batch.isEmpty)
        for size in [1, 7, 1500] {
            let errors = Mutex(0)
            var streamed: [AccessUnit] = []
            for try await au in chunked(bytes, size: size).accessUnits(timing: timing, leadingData: Self.leadingData(fixture),
                                                                       problem: { _ in errors.withLock { $0 += 1 } }) {
                streamed.append(au)
            }
            let label = "\(fixture) chunks of \(size)"
            #expect(streamed.map { $0.nalUnits.map { Array($0.bytes) } } == batch.map { $0.nalUnits.map { Array($0.bytes) } }, "\(label)")
            #expect(streamed.map(\.byteOffset) == batch.map(\.byteOffset), "\(label)")
            #expect(streamed.map(\.flags) == batch.map(\.flags), "\(label)")
            #expect(streamed.map(\.pts) == batch.map(\.pts), "\(label)")
            #expect(streamed.map(\.dts) == batch.map(\.dts), "\(label)")
            #expect(streamed.map(\.timeBase) == batch.map(\.timeBase), "\(label)")
            let errorCount = errors.withLock { $0 }
            #expect(errorCount == batchErrors.count, "\(label)")
        }
    }

    @Test(arguments: annexBFixtures)
    func nalUnitsFromChunksEqualTheSplitter(_ fixture: Fixture) async throws {
        let bytes = fixture.bytes()
        var splitter = AnnexB.Splitter(bytes[...], leadingData: Self.leadingData(fixture))
        var batch: [[UInt8]] = []
        while true {
            do { guard let unit = try splitter.next() else { break }; batch.append(Array(unit.bytes)) } catch { continue }
        }
        // Not two empty lists: at least a NAL unit per access unit of the fixture's facts.
        #expect(batch.count >= max(1, fixture.facts.accessUnitCount), "\(fixture): \(batch.count) NAL units")
        var streamed: [[UInt8]] = []
        for try await unit in chunked(bytes, size: 13).nalUnits(leadingData: Self.leadingData(fixture), problem: { _ in }) {
            streamed.append(Array(unit.bytes))
        }
        #expect(streamed == batch, "\(fixture)")
    }

    /// Without a problem handler the stream's first error ends the iteration, typed.
    @Test func firstErrorIsThrownWithoutAHandler() async throws {
        let bytes = Fixture.leadingGarbage.bytes()
        await #expect(throws: H264Error.self) {
            for try await _ in chunked(bytes, size: 64).accessUnits() {}
        }
    }

    /// Chunks of other byte sequences (here `Data`) are accepted too.
    @Test func dataChunks() async throws {
        let bytes = Fixture.allCases.first { $0.facts.kind == .annexB && $0 != .leadingGarbage }!.bytes()
        let stream = AsyncStream<Data> { c in c.yield(Data(bytes[..<100])); c.yield(Data(bytes[100...])); c.finish() }
        var count = 0
        for try await _ in stream.accessUnits() { count += 1 }
        #expect(count == AccessUnits.assemble(annexB: bytes[...]).accessUnits.count)
    }
}
