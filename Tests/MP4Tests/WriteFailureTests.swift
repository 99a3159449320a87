import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// A write that fails part-way (a full disk, a file-size limit) is an `io` error that says what
/// the file keeps; a fragmented recording is cut back to its last whole fragment, so it plays to
/// its end, and `continueRecording(in:)` goes on in a new file from the next random access point.
@Suite struct WriteFailureTests {
    /// A memory file that takes at most `capacity` bytes: a write past it stores what fits, as a
    /// short write on a full disk does, then fails.
    final class FullFile: MP4TruncatableFile {
        let base = MP4MemoryFile()
        var capacity: Int
        init(capacity: Int) { self.capacity = capacity }
        var bytes: [UInt8] { base.bytes }
        var byteCount: UInt64 { base.byteCount }
        func read(at offset: UInt64, count: Int) throws(MP4Error) -> ArraySlice<UInt8> { try base.read(at: offset, count: count) }
        func append(_ more: ArraySlice<UInt8>) throws(MP4Error) { try write(more, at: byteCount) }
        func write(_ more: ArraySlice<UInt8>, at offset: UInt64) throws(MP4Error) {
            let room = max(0, capacity - Int(offset))
            try base.write(more.prefix(room), at: offset)
            if more.count > room {
                throw MP4Error.invalid(.io, "cannot write 'full.mp4' after \(base.byteCount) bytes: No space left on device")
            }
        }
        func truncate(to byteCount: UInt64) throws(MP4Error) { try base.truncate(to: byteCount) }
    }

    /// 80 frames at 25 fps with an IDR picture every 4 (baseline-cavlc, ten times over).
    static func frames() -> [EncodedFrame] {
        let one = Fixture.baselineCAVLC.bytes()
        let stream = Array([[UInt8]](repeating: one, count: 10).joined())
        let (units, _) = AccessUnits.assemble(annexB: stream[...])
        return units.filter { !$0.flags.hasNoPicture }.compactMap { au in
            guard let t = au.timestamps(timescale: 90_000) else { return nil }
            return EncodedFrame(nalUnits: au.nalUnits, pts: t.pts, dts: t.dts, timescale: 90_000)
        }
    }

    @Test func aFullDiskKeepsWholeFragmentsAndTheRecordingGoesOnInANewFile() throws {
        let frames = Self.frames()
        #expect(frames.count == 80)
        // How big the whole recording is, to fill the disk half way through.
        let whole = MP4MemoryFile()
        let reference = MP4Recorder(file: whole, mode: .fragmented(fragmentDuration: .milliseconds(160)))
        for frame in frames { try reference.write(frame) }
        try reference.finish()

        let full = FullFile(capacity: whole.bytes.count / 2)
        let recorder = MP4Recorder(file: full, mode: .fragmented(fragmentDuration: .milliseconds(160)))
        var failedAt: Int?
        var failure: MP4Error?
        for (i, frame) in frames.enumerated() {
            do { try recorder.write(frame) } catch { failedAt = i; failure = error; break }
        }
        let error = try #require(failure)
        #expect(error.code == .io)
        #expect(error.reason.contains("cannot write 'full.mp4' after") && error.reason.contains("keeps"), "\(error.reason)")
        // Cut back to whole fragments: the file reads to its end, every sample whole.
        #expect(full.bytes.count < full.capacity)
        let kept = try MP4Reader(full.bytes)
        let keptSamples = try kept.sampleInfos(of: try #require(kept.videoTrack))
        #expect(keptSamples.count > 0 && keptSamples.count % 4 == 0, "whole 160 ms fragments: \(keptSamples.count)")
        let failedIndex = try #require(failedAt)
        #expect(keptSamples.count <= failedIndex)
        // Later writes fail the same way: nothing is appended after the cut.
        let size = full.bytes.count
        #expect(throws: MP4Error.self) { try recorder.write(frames[failedIndex]) }
        #expect(full.bytes.count == size)

        // Space returns: a new file from the next IDR picture, its own timeline from 0.
        let next = MP4MemoryFile()
        try recorder.continueRecording(in: next)
        for frame in frames[failedIndex...] { try recorder.write(frame) }
        try recorder.finish()
        let second = try MP4Reader(next.bytes)
        let infos = try second.sampleInfos(of: try #require(second.videoTrack))
        #expect(infos.first?.flags.isSync == true)
        #expect(infos.first?.decodeTime == 0)
        let skipped = (4 - failedIndex % 4) % 4
        #expect(recorder.skippedFrameCount == skipped)
        #expect(infos.count == frames.count - failedIndex - skipped)
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func aFileCutInPartsPlaysInFFmpeg() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = Self.frames()
        let recorder = MP4Recorder(file: try MP4File(creatingAtPath: dir + "/a.mp4"),
                                   mode: .fragmented(fragmentDuration: .milliseconds(160)))
        for frame in frames[..<30] { try recorder.write(frame) }
        try recorder.continueRecording(in: try MP4File(creatingAtPath: dir + "/b.mp4"))
        for frame in frames[30...] { try recorder.write(frame) }
        try recorder.finish()
        #expect(recorder.frameCount == 78 && recorder.skippedFrameCount == 2)
        for (name, count) in [("a.mp4", 30), ("b.mp4", 48)] {
            let probe = try FFmpeg.packets(dir + "/" + name)
            #expect(probe.errors.isEmpty, "\(name): \(probe.errors)")
            #expect(probe.packets.count == count, "\(name)")
            #expect(probe.packets.first?.key == true, "\(name)")
        }
    }
}
