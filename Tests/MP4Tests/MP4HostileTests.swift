import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Hostile and broken files (FIELD-NOTES, "Hostile files"): each is a typed error or a
/// documented lenient result, never a trap, and nothing is allocated or walked beyond what
/// the file's size allows.
@Suite struct MP4HostileTests {
    typealias S = MP4TestSupport

    /// A small valid progressive file (two IDRs, P-frames): the base the cases patch. Made
    /// once; a failure to make it fails each test that uses it.
    static func base() throws -> [UInt8] { try baseFile.get() }
    private static let baseFile = Result { try S.mp4(Fixture.baselineCAVLC.bytes(), layout: .fastStart).bytes }

    /// `bytes` with `value` written big-endian at `offset` bytes into the payload of the box at `path`.
    static func patched(_ bytes: [UInt8], _ path: [MP4FourCC], at offset: Int, _ value: [UInt8]) throws -> [UInt8] {
        let node = try #require(try S.node(path, in: bytes))
        var out = bytes
        let start = Int(node.offset) + node.header.headerSize + offset
        out.replaceSubrange(start..<(start + value.count), with: value)
        return out
    }

    /// `bytes` with the size field of the box at `path` replaced.
    static func resized(_ bytes: [UInt8], _ path: [MP4FourCC], to size: UInt32) throws -> [UInt8] {
        let node = try #require(try S.node(path, in: bytes))
        var out = bytes
        out.replaceSubrange(Int(node.offset)..<(Int(node.offset) + 4), with: S.be32(size))
        return out
    }

    /// Opens and walks every sample, reading each: the error met, if any.
    static func walk(_ bytes: [UInt8]) -> MP4Error? {
        do {
            let reader = try MP4Reader(bytes)
            for track in reader.tracks {
                var it = reader.samples(of: track)
                while let info = try it.next() { _ = try reader.sample(info) }
                if track.isH264Video { _ = try reader.annexB(of: track) }
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func baseFileIsValid() throws {
        try #require(!(try Self.base()).isEmpty)
        #expect(Self.walk(try Self.base()) == nil)
    }

    // MARK: - Box headers

    @Test func boxSizeBelowHeader() throws {
        for size: UInt32 in [1 + 1, 4, 7] {  // 1 means largesize: tested below
            #expect(Self.walk(try Self.resized(try Self.base(), ["moov"], to: size)) == MP4Error(.invalidBox, ""))
            #expect(Self.walk(try Self.resized(try Self.base(), S.stblPath + ["stsz"], to: size)) == MP4Error(.invalidBox, ""))
        }
    }

    @Test func sizeZeroOnlyAtTopLevel() throws {
        // Nested: an error (infinite loops in go-mp4 #151, mp4-rs #47).
        #expect(Self.walk(try Self.resized(try Self.base(), S.stblPath + ["stts"], to: 0)) == MP4Error(.invalidBox, ""))
        // The last top-level box (mdat here): to the end of the file.
        let mdatFirst = try S.mp4(Fixture.baselineCAVLC.bytes(), layout: .fastStart).bytes
        #expect(Self.walk(try Self.resized(mdatFirst, ["mdat"], to: 0)) == nil)
        let reader = try MP4Reader(try Self.resized(mdatFirst, ["mdat"], to: 0))
        #expect(!reader.hasTruncatedTail)
    }

    @Test func largeSizeBelowHeaderOrPastTheEnd() throws {
        // moov with size 1 and largesize 0, 8 and 15: below its 16-byte header (dcm4che #1609).
        for large: UInt64 in [0, 8, 15] {
            var bytes = try Self.resized(try Self.base(), ["moov"], to: 1)
            let moov = try #require(try S.node(["ftyp"], in: try Self.base())).header.size
            bytes.replaceSubrange(Int(moov + 8)..<Int(moov + 16), with: S.be64(large))
            #expect(Self.walk(bytes) == MP4Error(.invalidBox, ""), "largesize \(large)")
        }
        // A largesize that wraps offset + size: past the end of the file.
        var huge = try Self.resized(try Self.base(), ["moov"], to: 1)
        let moovOffset = Int(try #require(try S.node(["ftyp"], in: try Self.base())).header.size)
        huge.replaceSubrange((moovOffset + 8)..<(moovOffset + 16), with: S.be64(UInt64.max - 4))
        #expect(Self.walk(huge) != nil)
        // A nested box running past its parent.
        #expect(Self.walk(try Self.resized(try Self.base(), S.stblPath + ["stsd"], to: 0xFFFF_FF00)) == MP4Error(.invalidBox, ""))
    }

    @Test func nestingDeeperThanTheLimit() throws {
        // 40 nested trak boxes: the box tree stops at its limit; the reader looks only where
        // the specification puts boxes.
        var inner: [UInt8] = []
        for _ in 0..<40 { inner = S.box("trak", inner) }
        let file = S.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + S.box("moov", S.fullBox("mvhd", [UInt8](repeating: 0, count: 96)) + inner)
        #expect(throws: MP4Error(.limitExceeded, "")) { _ = try MP4BoxTree.nodes(in: file) }
        #expect(try MP4BoxTree.nodes(in: file, maximumDepth: 64).count == 43)  // ftyp, moov, mvhd, 40 trak
        #expect(Self.walk(file) != nil)  // the outer trak has no tkhd
    }

    @Test func bytesAfterTheLastBox() throws {
        let reader = try MP4Reader(try Self.base() + [0, 0, 1])
        #expect(reader.hasTruncatedTail)
        #expect(Self.walk(try Self.base() + [0, 0, 1]) == nil)
    }

    // MARK: - Counts checked against the box and the file

    @Test func stsdCountBeyondItsBox() throws {
        // mp4parse-rust #394: 738,197,505 entries.
        let bytes = try Self.patched(try Self.base(), S.stblPath + ["stsd"], at: 4, S.be32(738_197_505))
        #expect(Self.walk(bytes) == MP4Error(.invalidSampleTable, ""))
    }

    @Test(arguments: ["stts", "stss", "stsc", "stco", "ctts"] as [MP4FourCC])
    func entryCountBeyondItsBox(_ table: MP4FourCC) throws {
        let base = table == "ctts" ? try S.mp4(Fixture.mainCABACBFrames.bytes()).bytes : try Self.base()
        for count: UInt32 in [0x4000_0001, 0xFFFF_FFFF] {  // count x entry size wraps 32 bits (minimp4 #52)
            let bytes = try Self.patched(base, S.stblPath + [table], at: 4, S.be32(count))
            #expect(Self.walk(bytes) == MP4Error(.invalidSampleTable, ""), "\(table) \(count)")
        }
    }

    @Test func stszCountsBeyondTheFile() throws {
        // A table: 4 bytes a sample must be in the box.
        let table = try Self.patched(try Self.base(), S.stblPath + ["stsz"], at: 8, S.be32(0x4000_0000))
        #expect(Self.walk(table) == MP4Error(.invalidSampleTable, ""))
        // One size for all: count x size must fit the file (mp4ff #397: 9-90 GB from tiny files).
        var constant = try Self.patched(try Self.base(), S.stblPath + ["stsz"], at: 4, S.be32(1000))
        constant = try Self.patched(constant, S.stblPath + ["stsz"], at: 8, S.be32(0xFFFF_FFFF))
        #expect(Self.walk(constant) == MP4Error(.limitExceeded, ""))
    }

    @Test func stscDescriptionIndexOutOfRange() throws {
        // Chromium maps it to entry 0; we refuse it.
        let bytes = try Self.patched(try Self.base(), S.stblPath + ["stsc"], at: 16, S.be32(7))
        #expect(Self.walk(bytes) == MP4Error(.invalidSampleTable, ""))
    }

    // MARK: - Tables that contradict each other

    @Test func stscFirstChunkOutOfOrderOrRepeated() throws {
        let entry = { (first: UInt32, n: UInt32) in S.be32(first) + S.be32(n) + S.be32(1) }
        func file(_ entries: [[UInt8]]) throws -> [UInt8] {
            // Replace stsc with the given entries (same box size: pad with a free box after).
            let node = try #require(try S.node(S.stblPath + ["stsc"], in: try Self.base()))
            let body = [0, 0, 0, 0] + S.be32(UInt32(entries.count)) + entries.flatMap { $0 }
            let new = S.box("stsc", body)
            var out = try Self.base()
            out.replaceSubrange(Int(node.offset)..<Int(node.offset + node.header.size), with: new)
            return try Self.fixSizes(out, delta: new.count - Int(node.header.size))
        }
        let samples = try MP4Reader(try Self.base()).videoTrack!.sampleCount
        let chunks = Int(S.u32(try #require(try S.payload(S.stblPath + ["stco"], in: try Self.base())), 4))
        // Out of order (mp4parse-rust #113): an error.
        #expect(Self.walk(try file([entry(1, 1), entry(3, 1), entry(2, 1)])) == MP4Error(.invalidSampleTable, ""))
        // Not starting at chunk 1.
        #expect(Self.walk(try file([entry(2, 1)])) == MP4Error(.invalidSampleTable, ""))
        // Repeated first_chunk (#147): the later entry wins; here it places every sample.
        let perChunk = UInt32((samples + chunks - 1) / chunks)
        let repeated = try file([entry(1, 99), entry(1, perChunk)])
        let reader = try MP4Reader(repeated)
        _ = try reader.sampleInfos(of: try #require(reader.videoTrack))
        // Chunks that run out before the samples: an error while walking.
        #expect(Self.walk(try file([entry(1, 1)])) == (chunks >= samples ? nil : MP4Error(.invalidSampleTable, "")))
    }

    /// The sizes of moov, trak, mdia, minf and stbl after a box inside stbl grew by `delta`.
    static func fixSizes(_ bytes: [UInt8], delta: Int) throws -> [UInt8] {
        var out = bytes
        // Patch from the outside in: the offsets of these boxes do not move.
        for path in (1...5).map({ Array(S.stblPath.prefix($0)) }) {
            let node = try Self.rawNode(path, in: out)
            let size = Int(S.u32(out[...], Int(node)))
            out.replaceSubrange(Int(node)..<(Int(node) + 4), with: S.be32(UInt32(size + delta)))
        }
        return out
    }

    /// Offset of the box at `path`, found by walking sizes without checking them (the sizes
    /// are being fixed).
    static func rawNode(_ path: [MP4FourCC], in bytes: [UInt8]) throws -> Int {
        var offset = 0, end = bytes.count, depth = 0
        while offset + 8 <= end {
            let size = Int(S.u32(bytes[...], offset))
            let type = MP4FourCC(rawValue: S.u32(bytes[...], offset + 4))
            if type == path[depth] {
                if depth == path.count - 1 { return offset }
                depth += 1
                end = offset + size
                offset += 8
                continue
            }
            offset += max(size, 8)
        }
        throw MP4Error(.missingBox, "\(path)")
    }

    @Test func chunkOffsetsPastTheEnd() throws {
        // The first chunk points past the file: the sample read says so (mp4parse-rust #455).
        let bytes = try Self.patched(try Self.base(), S.stblPath + ["stco"], at: 8, S.be32(0xFFFF_FF00))
        #expect(Self.walk(bytes) == MP4Error(.truncated, ""))
        // co64 near 2^64: offset + size would wrap (CVE-2016-6164 style). One sample per chunk
        // makes 8 stco entries: the same box holds 4 co64 entries.
        let w = MP4MemoryFile()
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let writer = try MP4Writer(file: w, options: .init(timescale: 10_000, maximumChunkSize: 1))
        for (d, s) in samples { try writer.append(s, description: d) }
        try writer.finish()
        let stco = try #require(try S.node(S.stblPath + ["stco"], in: w.bytes))
        try #require(stco.header.size == 16 + 4 * 8)
        var wide = w.bytes
        let start = Int(stco.offset)
        wide.replaceSubrange((start + 4)..<(start + 8), with: MP4FourCC("co64").bytes)
        wide.replaceSubrange((start + 12)..<(start + 16), with: S.be32(4))
        wide.replaceSubrange((start + 16)..<(start + 24), with: S.be64(UInt64.max - 10))
        #expect(Self.walk(wide) == MP4Error(.truncated, ""))
    }

    @Test func overlappingChunksCannotReadTheFileManyTimes() throws {
        // Eight chunks of one sample each, all at offset 0, every sample nearly the whole file:
        // each lies inside the file, together they are eight times its size. The walk stops at
        // the sample that takes the total past the file.
        let w = MP4MemoryFile()
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let writer = try MP4Writer(file: w, options: .init(timescale: 10_000, maximumChunkSize: 1))
        for (d, s) in samples { try writer.append(s, description: d) }
        try writer.finish()
        let stco = try #require(try S.payload(S.stblPath + ["stco"], in: w.bytes))
        let chunks = Int(S.u32(stco, 4))
        try #require(chunks == 8)
        let stsz = try #require(try S.payload(S.stblPath + ["stsz"], in: w.bytes))
        try #require(S.u32(stsz, 4) == 0 && S.u32(stsz, 8) == 8)  // a table of sizes (constant sizes are checked when parsed)
        var bytes = w.bytes
        for c in 0..<chunks {
            bytes = try Self.patched(bytes, S.stblPath + ["stsz"], at: 12 + 4 * c, S.be32(UInt32(w.bytes.count - 100)))
            bytes = try Self.patched(bytes, S.stblPath + ["stco"], at: 8 + 4 * c, S.be32(0))
        }
        let reader = try MP4Reader(bytes)
        let track = try #require(reader.videoTrack)
        var it = reader.samples(of: track)
        var read = 0
        #expect(throws: MP4Error(.limitExceeded, "")) {
            while let info = try it.next() { read += try reader.sample(info).data.count }
        }
        #expect(read > 0 && read <= bytes.count)
        // The same file with its own offsets: every sample once, no error.
        #expect(Self.walk(w.bytes) == nil)
    }

    @Test func timeTablesShorterThanTheSamples() throws {
        // stts covering fewer samples than stsz: an error at the first sample it cannot time.
        let stts = try #require(try S.payload(S.stblPath + ["stts"], in: try Self.base()))
        let firstCount = S.u32(stts, 8)
        let bytes = try Self.patched(try Self.base(), S.stblPath + ["stts"], at: 8, S.be32(firstCount - 1))
        #expect(Self.walk(bytes) == MP4Error(.invalidSampleTable, ""))
        // A ctts shorter than the samples: the rest have offset 0 (as FFmpeg reads it).
        let b = try S.mp4(Fixture.mainCABACBFrames.bytes()).bytes
        let short = try Self.patched(b, S.stblPath + ["ctts"], at: 4, S.be32(1))
        #expect(Self.walk(short) == nil)
    }

    @Test func zeroDurationTrailingSttsEntry() throws {
        // gpac #3924: an stts entry of 0 samples or of duration 0 at the end is not an error.
        let stts = try #require(try S.payload(S.stblPath + ["stts"], in: try Self.base()))
        let n = S.u32(stts, 4)
        var bytes = try Self.patched(try Self.base(), S.stblPath + ["stts"], at: 8 + 8 * Int(n) - 4, S.be32(0))
        bytes = try Self.patched(bytes, S.stblPath + ["stts"], at: 0, [0, 0, 0, 0])
        #expect(Self.walk(bytes) == nil)
        let reader = try MP4Reader(bytes)
        #expect(try reader.sampleInfos(of: reader.videoTrack!).last?.duration == 0)
    }

    @Test func syncSampleTablePresentEmptyOrAbsent() throws {
        let empty = try Self.patched(try Self.base(), S.stblPath + ["stss"], at: 4, S.be32(0))
        let reader = try MP4Reader(empty)
        let samples = Fixture.baselineCAVLC.facts.accessUnitCount
        let none = try reader.sampleInfos(of: reader.videoTrack!)
        #expect(none.count == samples && none.allSatisfy { !$0.flags.isSync })
        let gone = try Self.patched(try Self.base(), S.stblPath + ["stss"], at: -4, MP4FourCC("free").bytes)
        let all = try MP4Reader(gone)
        let every = try all.sampleInfos(of: all.videoTrack!)
        #expect(every.count == samples && every.allSatisfy { $0.flags.isSync })
    }

    /// Firefox's "sync lies": every sample claims sync; the flags read as written, the access
    /// units made of the samples tell the truth from the bitstream.
    @Test func lyingSyncFlags() throws {
        let gone = try Self.patched(try Self.base(), S.stblPath + ["stss"], at: -4, MP4FourCC("free").bytes)
        let reader = try MP4Reader(gone)
        let track = try #require(reader.videoTrack)
        var idr = 0
        for info in try reader.sampleInfos(of: track) {
            #expect(info.flags.isSync)
            let au = try reader.sample(info).accessUnit(description: track.descriptions[0], index: info.index,
                                                        timescale: Int64(track.timescale))
            if au.nalUnits.contains(where: { $0.type == .idrSlice }) { idr += 1 }
        }
        #expect(idr == Fixture.baselineCAVLC.facts.idrCount)
    }

    // MARK: - Fragments

    /// A fragmented file of the same stream, a fragment per sample. Made once; a failure to
    /// make it fails each test that uses it.
    static func fragmented() throws -> [UInt8] { try fragmentedFile.get() }
    private static let fragmentedFile = Result { () throws -> [UInt8] in
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let file = MP4MemoryFile()
        let w = try MP4FragmentedFileWriter(file: file, options: .init(timescale: 10_000, targetDuration: .microseconds(100)))
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        return file.bytes
    }

    @Test func trunCountWithoutSizes() throws {
        // A trun claiming 2^32-1 samples with no per-sample fields and no default size.
        let trun = S.fullBox("trun", flags: 0, S.be32(0xFFFF_FFFF))
        let traf = S.box("traf", S.fullBox("tfhd", flags: 0x2_0000, S.be32(1)) + trun)
        let file = try Self.fragmented() + S.box("moof", S.fullBox("mfhd", S.be32(99)) + traf) + S.box("mdat", [1, 2, 3])
        #expect(Self.walk(file) == MP4Error(.invalidSampleTable, ""))
        // With a default size of 1: count x 1 byte must lie in the file.
        let sized = S.box("traf", S.fullBox("tfhd", flags: 0x2_0010, S.be32(1) + S.be32(1)) + trun)
        let file2 = try Self.fragmented() + S.box("moof", S.fullBox("mfhd", S.be32(99)) + sized) + S.box("mdat", [1, 2, 3])
        #expect(Self.walk(file2) == MP4Error(.invalidSampleTable, ""))
    }

    @Test func trunEntriesBeyondItsBox() throws {
        let trun = S.fullBox("trun", flags: 0x300, S.be32(1000) + S.be32(40) + S.be32(1))  // one entry, 1000 claimed
        let traf = S.box("traf", S.fullBox("tfhd", flags: 0x2_0000, S.be32(1)) + trun)
        let file = try Self.fragmented() + S.box("moof", S.fullBox("mfhd", S.be32(99)) + traf)
        #expect(Self.walk(file) == MP4Error(.invalidSampleTable, ""))
    }

    /// A recording cut short inside its last fragment reads up to the fragment before.
    @Test func fragmentedFileCutShort() throws {
        let whole = try MP4Reader(try Self.fragmented())
        let all = try whole.sampleInfos(of: whole.videoTrack!)
        let lastMoof = try #require(try MP4BoxTree.nodes(in: try Self.fragmented()).last { $0.header.type == "moof" })
        let kept = all.filter { $0.offset < lastMoof.offset }.count
        #expect(kept > 0 && kept < all.count)
        for cut in [Int(lastMoof.offset) + 4, Int(lastMoof.offset + lastMoof.header.size) + 9, try Self.fragmented().count - 1] {
            let reader = try MP4Reader(Array(try Self.fragmented().prefix(cut)))
            #expect(reader.hasTruncatedTail)
            let infos = try reader.sampleInfos(of: reader.videoTrack!)
            #expect(infos.count == kept, "cut at \(cut)")
            #expect(zip(infos, all).allSatisfy { $0 == $1 })
        }
    }

    // MARK: - Whole-file damage

    /// Every prefix of a small file: a typed error or fewer samples, never a trap.
    @Test func everyPrefix() throws {
        for file in [try Self.base(), try Self.fragmented()] {
            for n in stride(from: 0, to: file.count, by: max(1, file.count / 400)) {
                _ = Self.walk(Array(file.prefix(n)))
                FuzzProperty.replay(MP4FuzzBodies.read, Array(file.prefix(n)), label: "prefix of \(n) bytes")
            }
        }
    }

    /// Flipped bytes, zeroed and maxed 32-bit fields over the boxes of fixture files, through
    /// the fuzz body (which also checks written files read back the same).
    @Test(arguments: [Fixture.baselineCAVLC, .mainCABACBFrames, .resolutionChange])
    func mutations(_ fixture: Fixture) throws {
        var rng = SplitMix64(seed: 17)
        let progressive = try S.mp4(fixture.bytes()).bytes
        for file in [progressive] {
            let boxes = try MP4BoxTree.nodes(in: file)
            func below(_ n: UInt64) -> UInt64 { rng.next() % max(1, n) }
            for _ in 0..<300 {
                var bytes = file
                let box = boxes[Int(below(UInt64(boxes.count)))]
                let at = Int(box.offset) + Int(below(min(box.header.size, 64)))
                switch below(3) {
                case 0: bytes[at] ^= UInt8(1 << below(8))
                case 1: for k in 0..<4 where at + k < bytes.count { bytes[at + k] = 0xFF }
                default: for k in 0..<4 where at + k < bytes.count { bytes[at + k] = 0 }
                }
                FuzzProperty.replay(MP4FuzzBodies.read, bytes, label: "\(fixture) mutation")
            }
        }
    }

    // MARK: - Corpus files with quirks

    /// mp4ff: an avc1 entry with four zero bytes after its last box.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func sampleEntryWithTrailingBytes() throws {
        let minf = Support.readFile(Corpus.path("mp4ff/mp4__minf_with_trailing_avc1_bytes.bin"))
        let mdhd = S.fullBox("mdhd", [UInt8](repeating: 0, count: 8) + S.be32(90_000) + S.be32(0) + [0x55, 0xC4, 0, 0])
        let hdlr = S.fullBox("hdlr", S.be32(0) + MP4FourCC("vide").bytes + [UInt8](repeating: 0, count: 13))
        let tkhd = S.fullBox("tkhd", [UInt8](repeating: 0, count: 8) + S.be32(1) + [UInt8](repeating: 0, count: 68))
        let moov = S.box("moov", S.fullBox("mvhd", [UInt8](repeating: 0, count: 96))
                         + S.box("trak", tkhd + S.box("mdia", mdhd + hdlr + minf)))
        let reader = try MP4Reader(S.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + moov)
        let d = try #require(reader.videoTrack?.descriptions.first)
        #expect(d.decoderConfiguration?.profileIndication == 100)
        #expect(d.pixelAspectRatio == MP4PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1))
    }

    /// mp4parse-rust: encrypted (encv) tracks are listed, not decoded.
    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func encryptedTrack() throws {
        let reader = try MP4Reader(Support.readFile(Corpus.path("mp4parse-rust/bipbop_cbcs_video_init.mp4")))
        let track = try #require(reader.tracks.first { $0.handlerType == "vide" })
        #expect(track.isEncrypted)
        #expect(!track.isH264Video)
        #expect(track.descriptions.first?.originalFormat == "avc1")
        #expect(throws: MP4Error(.unsupported, "")) { _ = try reader.annexB(of: track) }
    }
}
