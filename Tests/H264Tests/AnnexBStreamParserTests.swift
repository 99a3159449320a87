import Testing
@testable import H264
import TestSupport

/// The batch and streaming drivers are the fuzz bodies' own (`FramingEvents.split` and
/// `streamEvents`), so these tests and the `streaming` fuzz target check the same thing.
@Suite(.recordingFuzzViolations) struct AnnexBStreamParserTests {
    static let edgeCases: [[UInt8]] = [
        [],
        [0],
        [0, 0, 1],
        [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 1, 0x65, 4, 0, 0],
        [9, 9, 0, 0, 1, 0x09, 0xF0],
        [9, 9, 0, 0],
        [0, 0, 1, 0x80, 0, 0, 1, 0x09, 0x10],
        [0, 0, 1, 0x00, 0x00, 0x00, 0x01, 0x65, 0, 0, 0],
        [0, 0, 1, 0x00, 0x65, 0, 0, 3, 0, 0, 1, 0x41],
        [0, 0, 0, 0, 0, 1, 0x41, 0, 0, 2, 0, 0, 0, 0, 1, 0x01, 0, 0, 0],
        [0, 0, 1, 0x74, 1, 2, 0, 0, 1, 0x54],  // type 20 header extension truncated
        [0, 0, 1, 0, 0, 1, 0, 0, 1, 0x21, 0, 1, 0, 0, 0, 1, 0x21],
    ]

    @Test(arguments: 0..<edgeCases.count)
    func edgeCasesAgreeWithBatch(_ index: Int) {
        let bytes = Self.edgeCases[index]
        for policy in [AnnexB.LeadingDataPolicy.reject, .skip] {
            let expected = FramingEvents.split(bytes[...], policy: policy)
            for size in 1...max(1, bytes.count) {
                #expect(FramingEvents.stream(bytes, sizes: [size], policy: policy) == expected, "chunk \(size)")
            }
        }
    }

    @Test func wholeChunkUnitsAreViews() throws {
        let chunk: [UInt8] = [0, 0, 1, 0x67, 1, 0, 0, 1, 0x68, 2, 0, 0, 1, 0x65]
        var parser = AnnexBStreamParser()
        parser.append(chunk)
        let first = try #require(try parser.next())
        #expect(first.bytes.startIndex == 3)
        #expect(first.bytes.withUnsafeBufferPointer { $0.baseAddress } == chunk.withUnsafeBufferPointer { $0.baseAddress! + 3 })
        #expect(try parser.next()?.type == .pps)
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 1)
        parser.finish()
        #expect(try parser.next()?.type == .idrSlice)
        #expect(try parser.next() == nil)
    }

    /// Units kept by the caller across calls keep their bytes (the parser reuses its buffer only
    /// when the caller has let go of the last unit).
    @Test func retainedUnitsStayValid() throws {
        var stream: [UInt8] = []
        for i in 0..<50 { stream += [0, 0, 1, 0x41] + [UInt8](repeating: UInt8(i + 1), count: 40 + i) }
        var parser = AnnexBStreamParser()
        var kept: [NALUnit] = []
        var i = 0
        while i < stream.count {
            parser.append(stream[i..<min(i + 13, stream.count)])
            while let u = try parser.next() { kept.append(u) }
            i += 13
        }
        parser.finish()
        while let u = try parser.next() { kept.append(u) }
        #expect(kept == (try AnnexB.split(stream)))
    }

    @Test func maximumSize() {
        var bytes: [UInt8] = [0, 0, 1, 0x65] + [UInt8](repeating: 0x55, count: 100) + [0, 0, 1, 0x41, 1]
        bytes += [0, 0, 1, 0x65] + [UInt8](repeating: 0x55, count: 100)
        for size in [1, 7, 50, 1000] {
            let events = FramingEvents.stream(bytes, sizes: [size], maximum: 64)
            #expect(events == [.error(.nalUnitTooLarge), .unit([0x41, 1]), .error(.nalUnitTooLarge)], "chunk \(size)")
        }
        // Zeros do not grow the buffer, however many.
        let zeros = [0, 0, 1, 0x41] + [UInt8](repeating: 0, count: 10_000) + [0, 0, 1, 0x41]
        #expect(FramingEvents.stream(zeros, sizes: [3], maximum: 8) == [.unit([0x41]), .unit([0x41])])
    }

    @Test func randomChunkingAgrees() {
        var rng = SplitMix64(seed: 42)
        for round in 0..<200 {
            // Streams rich in zeros and start codes.
            let n = Int(rng.next() % 300)
            var bytes: [UInt8] = []
            for _ in 0..<n {
                let r = rng.next() % 10
                bytes.append(r < 4 ? 0 : r < 6 ? 1 : UInt8(truncatingIfNeeded: rng.next()) & 0x7F)
            }
            for policy in [AnnexB.LeadingDataPolicy.reject, .skip] {
                let expected = FramingEvents.split(bytes[...], policy: policy)
                let sizes = (0..<5).map { _ in Int(rng.next() % 9) + 1 }
                #expect(FramingEvents.stream(bytes, sizes: sizes, policy: policy) == expected, "round \(round)")
            }
        }
    }

    // 300,000 and 1 MiB: chunks the streaming parser scans ahead (four regions at once).
    static let corpusChunkSizes = [1, 7, 188, 1500, 65536, 300_000, 1 << 20]

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: Corpus.annexBStreams)
    func corpusStreamingEqualsBatch(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let expected = FramingEvents.split(bytes[...])
        #expect(!expected.isEmpty)
        for size in Self.corpusChunkSizes {
            if size == 1 && bytes.count > 60_000 { continue }  // byte-by-byte only on the small streams
            if size == 7 && bytes.count > 400_000 { continue }
            #expect(FramingEvents.stream(bytes, sizes: [size]) == expected, "chunk size \(size)")
        }
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func corpusRandomChunking() throws {
        var rng = SplitMix64(seed: 7)
        for path in Corpus.annexBStreams.prefix(12) {
            let bytes = try Corpus.read(path)
            let sizes = (0..<16).map { _ in Int(rng.next() % 3000) + 1 }
            #expect(FramingEvents.stream(bytes, sizes: sizes) == FramingEvents.split(bytes[...]), "\(path)")
        }
    }

    /// After `next()` throws, the caller appends the next chunk before draining (issue 12):
    /// the chunk waits its turn, nothing traps, and the stream comes out as the batch splitter
    /// sees it.
    @Test func appendAfterAnError() throws {
        let first: [UInt8] = [0, 0, 1, 0x80, 0xAA, 0, 0, 1, 0x09, 0xF0]
        let second: [UInt8] = [0, 0, 1, 0x09, 0xF0]
        var parser = AnnexBStreamParser()
        parser.append(first)
        var events: [FramingEvents.Event] = []
        do { _ = try parser.next() } catch { events.append(.error(error.code)) }
        #expect(events == [.error(.forbiddenBitSet)])
        parser.append(second)  // the first chunk is not drained yet
        #expect(!parser.needsInput)
        parser.finish()
        parser.append([0, 0, 1, 0x09, 0x10])  // after finish(): ignored
        while true {
            do throws(H264Error) {
                guard let unit = try parser.next() else { break }
                events.append(.unit(Array(unit.bytes)))
            } catch { events.append(.error(error.code)) }
        }
        #expect(events == FramingEvents.split((first + second)[...]))
        #expect(events == [.error(.forbiddenBitSet), .unit([0x09, 0xF0]), .unit([0x09, 0xF0])])
    }

    /// The same through `AccessUnitParser`, and chunks appended many at a time.
    @Test func accessUnitParserAfterAnError() throws {
        var parser = AccessUnitParser()
        parser.append([0, 0, 1, 0x80, 0xAA, 0, 0, 1, 0x09, 0xF0])
        #expect(throws: H264Error(.forbiddenBitSet, "")) { _ = try parser.next() }
        for _ in 0..<3 { parser.append([0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x41, 0x9A, 0x02]) }  // AUD, P slice
        parser.finish()
        var types: [[NALUnitType]] = []
        while let au = try parser.next() { types.append(au.nalUnits.map(\.type)) }
        #expect(types == [[.accessUnitDelimiter, .accessUnitDelimiter, .slice], [.accessUnitDelimiter, .slice],
                          [.accessUnitDelimiter, .slice]])
    }

    /// `leadingByteCount`: the bytes skipped before the first start code, without the zero
    /// bytes right before it, whatever the chunking.
    @Test(arguments: [1, 2, 3, 5, 100])
    func leadingByteCount(chunk: Int) throws {
        let bytes: [UInt8] = [7, 7, 0, 7, 0, 0, 0, 0, 1, 0x09, 0xF0]
        var parser = AnnexBStreamParser(leadingData: .skip)
        var i = 0
        var units = 0
        while i < bytes.count {
            parser.append(bytes[i..<min(i + chunk, bytes.count)])
            i += chunk
            while try parser.next() != nil { units += 1 }
        }
        parser.finish()
        while try parser.next() != nil { units += 1 }
        #expect(units == 1 && parser.leadingByteCount == 4)
    }
}
