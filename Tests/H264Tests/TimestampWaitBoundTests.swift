import Testing
import TestSupport
import H264Fixtures
@testable import H264

/// The bound on access units waiting for their presentation time (`TimestampAssigner`,
/// `AccessUnitParser`): a stream whose picture order counts keep falling used to keep every
/// access unit after its first pictures (3.2 MB of input held 430 MB in `h264 inspect`); now
/// at most `heldAccessUnitLimit` are held, pictures that would wait longer are presented
/// early by the documented rule, and real streams keep their timestamps.
@Suite struct TimestampWaitBoundTests {
    /// The hostile stream of H264Fixtures (an IDR picture, then P pictures whose POC falls by
    /// 2 each).
    static func fallingPOCStream(count: Int, maxNumReorderFrames: UInt32?) throws -> [UInt8] {
        try StreamBuilder.fallingPictureOrderCounts(count: count, maxNumReorderFrames: maxNumReorderFrames)
    }

    /// Every access unit of `bytes` through the long-lived service path (`next(into:)`, chunks
    /// of 4 KiB), with what the parser said of the bound at the end.
    static func parse(_ bytes: [UInt8], timing: TimestampOptions)
        throws -> (units: [(pts: Int64, dts: Int64, poc: Int64?, early: Bool)], parser: AccessUnitParser) {
        var parser = AccessUnitParser(timing: timing)
        var units: [(pts: Int64, dts: Int64, poc: Int64?, early: Bool)] = []
        var au = AccessUnit()
        var offset = 0
        var finished = false
        while true {
            if parser.needsInput && !finished {
                if offset < bytes.count {
                    parser.append(bytes[offset..<min(offset + 4096, bytes.count)])
                    offset += 4096
                } else {
                    parser.finish()
                    finished = true
                }
            }
            if try parser.next(into: &au) {
                units.append((try #require(au.pts), try #require(au.dts), au.poc,
                              au.diagnostics.contains { $0.code == .limitExceeded }))
            } else if finished {
                break
            }
        }
        return (units, parser)
    }

    /// DTS strictly increases, PTS >= DTS, and no two pictures share a PTS. A pass with a
    /// presentation delay of 0 measures the delay the stream needs: its PTS plus that delay.
    static func expectOrderedTimestamps(_ units: [(pts: Int64, dts: Int64, poc: Int64?, early: Bool)], parser: AccessUnitParser,
                                        timing: TimestampOptions) {
        let shift = timing.presentationDelay == 0 ? parser.requiredPresentationDelay : 0
        var previousDTS = Int64.min
        var seen = Set<Int64>()
        for (i, u) in units.enumerated() {
            #expect(u.dts > previousDTS, "access unit \(i): DTS \(u.dts) after \(previousDTS)")
            #expect(u.pts + shift >= u.dts, "access unit \(i): PTS \(u.pts) + \(shift) before DTS \(u.dts)")
            #expect(seen.insert(u.pts).inserted, "access unit \(i): PTS \(u.pts) given twice")
            previousDTS = u.dts
        }
    }

    /// 20,000 access units of falling POC: the old assigner held every one after the first
    /// (the first pictures never became the smallest POC); now the most held is the limit,
    /// reached and never passed, in each mode: the SPS's `max_num_reorder_frames` 2 (2 + 33),
    /// no VUI (MaxDpbFrames 16 for 16x16 at level 3: 16 + 33), and the presentation delay
    /// `h264 inspect` measures with (32 + 33).
    @Test(arguments: [(UInt32?.some(2), Int64?.none, 35), (nil, nil, 49), (2, 0, 65)])
    func fallingPOCHoldsAtMostTheLimit(reorder: UInt32?, delay: Int64?, limit: Int) throws {
        let count = 20_000
        let stream = try Self.fallingPOCStream(count: count, maxNumReorderFrames: reorder)
        let timing = TimestampOptions(presentationDelay: delay)
        let (units, parser) = try Self.parse(stream, timing: timing)
        #expect(units.count == count)
        // The stream is what it claims: every POC below the one before.
        #expect(zip(units, units.dropFirst()).allSatisfy { ($1.poc ?? .max) < ($0.poc ?? .min) })
        #expect(parser.heldAccessUnitLimit == limit)
        #expect(parser.maximumHeldAccessUnitCount == limit)
        Self.expectOrderedTimestamps(units, parser: parser, timing: timing)
        // Early presentations are counted (the pictures stuck in the presentation order, one
        // per reorder place, each time they reach the limit), and each carries its diagnostic.
        #expect(parser.earlyPresentationCount >= count / limit)
        #expect(units.filter(\.early).count == parser.earlyPresentationCount)
    }

    /// The rule, exactly: reorder depth 1, so at most 1 + 1 + 32 = 34 access units are held.
    /// Picture 0 (POC 0) waits while pictures 1...33 (smaller POCs) are presented as they come;
    /// at picture 33 it has waited behind 33 access units, and is presented then, after
    /// picture 33; picture 34 waits in its turn until picture 67, and so on; the last one to
    /// wait (170) is presented at the end of the stream. PTS is the
    /// presentation position (2 per frame) plus the delay of the reorder depth (2).
    @Test func earlyPresentationRule() throws {
        let stream = try Self.fallingPOCStream(count: 200, maxNumReorderFrames: nil)
        let timing = TimestampOptions(reorderDepth: 1)
        let (units, parser) = try Self.parse(stream, timing: timing)
        #expect(parser.heldAccessUnitLimit == 34)
        #expect(units.enumerated().filter(\.element.early).map(\.offset) == [0, 34, 68, 102, 136])
        #expect(units[0].pts == 2 * 33 + 2)
        #expect(units[1].pts == 2)
        #expect(units[33].pts == 2 * 32 + 2)
        #expect(units[34].pts == 2 * 67 + 2)
        #expect(units[35].pts == 2 * 34 + 2)
        #expect(parser.earlyPresentationCount == 5)
        #expect(!units[170].early && units[170].pts == units.map(\.pts).max())
        Self.expectOrderedTimestamps(units, parser: parser, timing: timing)
    }

    /// Whole-stream assignment (`AccessUnits.assemble`) applies the same bound: its timestamps
    /// are those of a streaming pass with the presentation delay the stream needs, as
    /// documented, also where pictures are presented early.
    @Test func batchAssignmentAgreesWithTwoStreamingPasses() throws {
        let stream = try Self.fallingPOCStream(count: 500, maxNumReorderFrames: 2)
        let batch = AccessUnits.assemble(annexB: stream[...])
        #expect(batch.errors.isEmpty)
        let (first, measuring) = try Self.parse(stream, timing: .init(presentationDelay: 0))
        #expect(first.contains { $0.early })
        let (second, _) = try Self.parse(stream, timing: .init(presentationDelay: measuring.requiredPresentationDelay))
        #expect(batch.accessUnits.map(\.pts) == second.map(\.pts))
        #expect(batch.accessUnits.map(\.dts) == second.map(\.dts))
    }

    /// Pictures presented after 16 B pictures decoded after them (the B pictures between two
    /// anchors, or an open GOP's leading pictures) keep their order: the 32 access units beyond
    /// the reorder depth + 1 are there for them. 40 B pictures between anchors need more: the
    /// anchor is presented early, and counted.
    @Test(arguments: [(16, Int64?.none, false), (16, 0, false), (40, nil, true)])
    func anchorsAfterLongRunsOfBPictures(run: Int, delay: Int64?, early: Bool) throws {
        var options = StreamBuilder.SequenceOptions(width: 16, height: 16)
        options.log2MaxPicOrderCntLsb = 12
        options.maxNumReorderFrames = 1  // each B picture follows one picture decoded before it: its anchor
        var builder = try StreamBuilder(options)
        try builder.append(.init(.i, idr: true))
        let step = Int64(2 * (run + 1))
        for gop in 0..<4 {
            let anchor = step * Int64(gop + 1)
            try builder.append(.init(.p, poc: anchor))
            for b in 0..<run { try builder.append(.init(.b, poc: anchor - step + 2 * Int64(b + 1))) }
        }
        let timing = TimestampOptions(presentationDelay: delay)
        let (units, parser) = try Self.parse(builder.annexB(), timing: timing)
        Self.expectOrderedTimestamps(units, parser: parser, timing: timing)
        #expect((parser.earlyPresentationCount > 0) == early)
        if !early {
            // Presentation order is POC order.
            let byPTS = units.sorted { $0.pts < $1.pts }.map(\.poc)
            #expect(byPTS == units.map(\.poc).sorted { ($0 ?? 0) < ($1 ?? 0) })
        }
    }

    /// No stream of the corpus (conformance streams with deep reordering, PAFF and MBAFF
    /// fields, B pyramids) waits long enough to be presented early, in either mode: the bound
    /// changes no real stream's timestamps.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"), arguments: Corpus.annexBStreams)
    func corpusStreamsAreNotPresentedEarly(_ name: String) throws {
        let bytes = try Corpus.read(name)
        for delay in [nil, Int64(0)] {
            var parser = AccessUnitParser(timing: .init(presentationDelay: delay), leadingData: .skip)
            parser.append(bytes)
            parser.finish()
            var count = 0
            while true {
                do {
                    guard try parser.next() != nil else { break }
                    count += 1
                } catch {
                    continue  // damaged streams of the corpus: the parser goes on
                }
            }
            #expect(count > 0)
            #expect(parser.earlyPresentationCount == 0, "\(name), presentation delay \(String(describing: delay))")
            #expect(parser.maximumHeldAccessUnitCount <= (parser.heldAccessUnitLimit ?? 0))
        }
    }
}
