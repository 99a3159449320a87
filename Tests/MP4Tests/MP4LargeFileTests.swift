import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// Files past 4 GiB, without writing 4 GiB: the media of large samples is left as holes (a
/// sparse file on disk, or ranges of zeros in memory), the boxes are real.
@Suite struct MP4LargeFileTests {
    typealias S = MP4TestSupport

    /// Samples whose bytes are `chunk` (zeros) `count` times, timed 40 ms apart.
    static func bigSamples(count: Int, chunk: ArraySlice<UInt8>) throws -> [(MP4SampleDescription, MP4Sample)] {
        let (d, s) = try #require(try S.samples(Fixture.baselineCAVLC.bytes()).first)
        return (0..<count).map { k in
            var sample = s
            sample.data = chunk
            sample.decodeTime = Int64(k) * 400
            sample.presentationTime = sample.decodeTime
            sample.flags = k % 2 == 0 ? .sync : .nonSync
            return (d, sample)
        }
    }

    /// A file in memory that keeps small writes and remembers large appends as zeros: moving
    /// its tail is O(1).
    final class SparseMemoryFile: MP4WritableFile {
        /// Stored bytes by offset; everything else reads as zero.
        var extents: [(offset: UInt64, bytes: [UInt8])] = []
        var byteCount: UInt64 = 0

        func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
            guard offset + UInt64(count) <= byteCount else { throw MP4Error.truncated("past the end") }
            var out = [UInt8](repeating: 0, count: count)
            for e in extents where e.offset < offset + UInt64(count) && e.offset + UInt64(e.bytes.count) > offset {
                for (k, b) in e.bytes.enumerated() {
                    let at = Int64(e.offset) + Int64(k) - Int64(offset)
                    if at >= 0 && at < Int64(count) { out[Int(at)] = b }
                }
            }
            return out[...]
        }

        func append(_ bytes: ArraySlice<UInt8>) throws(MP4Error) { try write(bytes, at: byteCount) }

        func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
            if bytes.count < (1 << 16) { extents.append((offset, Array(bytes))) }
            byteCount = max(byteCount, offset + UInt64(bytes.count))
        }

        func moveTail(from offset: UInt64, by distance: UInt64) throws(MP4Error) {
            extents = extents.map { $0.offset >= offset ? ($0.offset + distance, $0.bytes) : $0 }
            byteCount += distance
        }
    }

    /// Fast start past 4 GiB: co64, a 64-bit mdat header, and offsets that count the moov.
    @Test func fastStartPast4GiBUsesCo64AndLargeSize() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 26)  // 64 MiB
        let samples = try Self.bigSamples(count: 66, chunk: zeros[...])  // 4.125 GiB
        let file = SparseMemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 10_000))
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        // ftyp, moov, then the mdat header with size 1 (64-bit) where the free box was.
        #expect(try S.payload(S.stblPath + ["co64"], in: file) != nil)
        let reader = try MP4Reader(file)
        let track = try #require(reader.videoTrack)
        let infos = try reader.sampleInfos(of: track)
        #expect(infos.count == samples.count)
        let moov = try #require(try S.node(["moov"], in: file))
        let mdatOffset = moov.offset + moov.header.size
        let mdatHeader = Array(try file.read(at: mdatOffset, count: 16))
        #expect(Array(mdatHeader[0..<8]) == [0, 0, 0, 1] + MP4FourCC("mdat").bytes)
        #expect(S.be64(UInt64(samples.count) * UInt64(zeros.count) + 16) == Array(mdatHeader[8..<16]))
        for (k, info) in infos.enumerated() {
            #expect(info.offset == mdatOffset + 16 + UInt64(k) * UInt64(zeros.count))
        }
        #expect(infos.last.map { $0.offset + UInt64($0.size) } == file.byteCount)
    }

    /// Media that ends just below 4 GiB before the move and above it after: the moov grows from
    /// stco to co64 and the offsets are computed with the final size (the fixed point).
    @Test func fastStartReachesFixedPointAcrossTheStcoLimit() throws {
        // 48 bytes of ftyp, free and mdat header, then 63 samples: the last starts 19 bytes below 2^32.
        let chunk = [UInt8](repeating: 0, count: 68_174_083)
        let samples = try Self.bigSamples(count: 64, chunk: chunk[...])
        // Before the move the last chunk offset is ftyp + free + mdat header + 63 x chunk.
        let lastBefore = UInt64(32 + 16) + 63 * UInt64(chunk.count)
        #expect(lastBefore < UInt64(UInt32.max) && lastBefore + 100 > UInt64(UInt32.max))
        let file = SparseMemoryFile()
        let w = try MP4Writer(file: file, options: .init(timescale: 10_000, maximumChunkSize: 1))  // a chunk per sample
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        #expect(try S.payload(S.stblPath + ["co64"], in: file) != nil)
        #expect(try S.payload(S.stblPath + ["stco"], in: file) == nil)
        let reader = try MP4Reader(file)
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        let moov = try #require(try S.node(["moov"], in: file))
        let first = moov.offset + moov.header.size + 16
        #expect(infos.map(\.offset) == (0..<64).map { first + UInt64($0) * UInt64(chunk.count) })
    }

    /// A real 4.1 GiB file on disk (sparse: the media is holes), moov last: FFmpeg reads every
    /// packet at the offsets our reader finds.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffprobe"))
    func mediaFirstPast4GiBReadsInFFmpeg() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/big.mp4"
        let disk = try SparseDiskFile(path: path)
        let zeros = [UInt8](repeating: 0, count: 1 << 26)
        let samples = try Self.bigSamples(count: 66, chunk: zeros[...])
        let w = try MP4Writer(file: disk, options: .init(timescale: 10_000, layout: .mediaFirst))
        for (d, s) in samples { try w.append(s, description: d) }
        try w.finish()
        try disk.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).uint64Value
        #expect(size > UInt64(UInt32.max))
        let reader = try MP4Reader(try MP4File(readingAtPath: path))
        let infos = try reader.sampleInfos(of: try #require(reader.videoTrack))
        // The media is zeros (ffprobe's parser complains about NAL lengths, not about boxes), and
        // reading 4 GiB of holes takes a while: ffprobe reads the first packets and, by seeking
        // through the co64 index, the last ones, past 4 GiB.
        let r = try Support.run("ffprobe", ["-v", "quiet", "-select_streams", "v:0", "-read_intervals", "%+#2,2.56%+#2",
                                            "-show_entries", "packet=pos,size", "-of", "csv=p=0", path])
        var seen: [(UInt64, Int)] = []
        for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: ",")
            guard f.count == 2, let a = Int(f[0]), let b = Int(f[1]) else { continue }
            // csv prints size then pos.
            seen.append((UInt64(b), a))
        }
        #expect(seen.count >= 3)
        #expect(seen.contains { $0.0 > UInt64(UInt32.max) }, "no packet read past 4 GiB")
        for (pos, size) in seen {
            #expect(infos.contains { $0.offset == pos && $0.size == size }, "ffprobe packet at \(pos)")
        }
    }

    /// A file on disk whose large appends (the media) are left as holes.
    final class SparseDiskFile: MP4WritableFile {
        let file: MP4File
        let path: String
        var byteCount: UInt64 = 0

        init(path: String) throws {
            self.path = path
            file = try MP4File(creatingAtPath: path)
        }

        func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
            throw MP4Error(.io, "not read back in this test")
        }

        func append(_ bytes: ArraySlice<UInt8>) throws(MP4Error) {
            if bytes.count >= (1 << 20) { byteCount += UInt64(bytes.count); return }
            try write(bytes, at: byteCount)
        }

        func write(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
            try file.write(bytes, at: offset)
            byteCount = max(byteCount, offset + UInt64(bytes.count))
        }

        /// Extends the file to its logical size (a hole) and closes it.
        func close() throws {
            file.close()
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: byteCount)
            try handle.close()
        }
    }
}
