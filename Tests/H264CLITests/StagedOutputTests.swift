import CommandLineSupport
import Foundation
import Testing
@testable import H264CLI
import FLV
import H264
import H264Video
import MP4
import MediaSupport
import TestSupport

/// A failed conversion, encoding or segmentation leaves no file under the output's name that
/// looks complete (issue 27): outputs are written under `.NAME.partial-PID` and renamed when
/// finished; a failure removes them (an output that was there before stays as it was), except
/// `encode`, which keeps the frames encoded before the error under the temporary name and says
/// so. A failed `segment` leaves no playlist in its directory. The commands run in this process.
@Suite struct StagedOutputTests {
    static let fixtures = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams").path

    /// Runs a command in this process; returns what it wrote to stderr.
    @discardableResult
    static func run(_ command: any CLICommand.Type, _ arguments: [String]) throws -> String {
        let notes = ThreadLock("")
        try Output.$capturedStandardError.withValue(notes) {
            var args = Arguments(arguments)
            try command.run(&args)
        }
        return notes.withLock { $0 }
    }

    static func files(in dir: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
    }

    /// Conversions that fail after writing part of their output (input cut inside a NAL unit
    /// or an FLV tag): the output's name keeps what it held before, nothing else is left.
    @Test func failedConversionsLeaveNoOutput() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A stream of several access units as AVCC and as FLV, each cut before its end.
        let stream = Support.readFile(Self.fixtures + "/main-cabac-bframes.264")
        try Output.write(stream, to: dir + "/in.264")
        try Self.run(ConvertCommand.self, [dir + "/in.264", dir + "/in.avcc", "--to", "avcc", "--avcc-config", dir + "/in.avcC"])
        try Self.run(ConvertCommand.self, [dir + "/in.264", dir + "/in.flv"])
        let avcc = Support.readFile(dir + "/in.avcc"), flv = Support.readFile(dir + "/in.flv")
        try Output.write(Array(avcc.dropLast(7)), to: dir + "/cut.avcc")
        try Output.write(Array(flv.dropLast(30)), to: dir + "/cut.flv")
        let before = Self.files(in: dir)

        #expect(throws: H264Error(.lengthPastEnd, "")) {
            try Self.run(ConvertCommand.self, [dir + "/cut.avcc", dir + "/a.h264", "--to", "annexb", "--avcc-config", dir + "/in.avcC"])
        }
        #expect(throws: FLVError(.truncated, "")) { try Self.run(ConvertCommand.self, [dir + "/cut.flv", dir + "/f.h264"]) }
        #expect(Self.files(in: dir) == before, "left: \(Self.files(in: dir).subtracting(before))")

        // An output that was there before a failed conversion is not touched.
        let old: [UInt8] = Array("an older output".utf8)
        try Output.write(old, to: dir + "/kept.h264")
        #expect(throws: FLVError(.truncated, "")) { try Self.run(ConvertCommand.self, [dir + "/cut.flv", dir + "/kept.h264"]) }
        #expect(Support.readFile(dir + "/kept.h264") == old)
        #expect(Self.files(in: dir) == before.union(["kept.h264"]))

        // MP4 output: a stream with no parameter sets fails; no file.
        try Output.write([0, 0, 0, 1, 0x65, 0x88, 0x84, 0x21], to: dir + "/noparams.264")
        #expect(throws: (any Error).self) { try Self.run(ConvertCommand.self, [dir + "/noparams.264", dir + "/n.mp4"]) }
        #expect(!FileManager.default.fileExists(atPath: dir + "/n.mp4"))
        #expect(!Self.files(in: dir).contains { $0.contains(".partial-") }, "\(Self.files(in: dir))")
    }

    /// A finished conversion has its name and no temporary file beside it; an output that is
    /// not a regular file (`/dev/null`) is written in place.
    @Test func finishedOutputsAreRenamed() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.run(ConvertCommand.self, [Self.fixtures + "/main-cabac-bframes.264", dir + "/out.mp4"])
        #expect(Self.files(in: dir) == ["out.mp4"])
        #expect(try MP4Reader(try MP4File(readingAtPath: dir + "/out.mp4")).videoTrack?.sampleCount == 10)
        try Self.run(ConvertCommand.self, [Self.fixtures + "/main-cabac-bframes.264", "/dev/null", "--to", "annexb", "--aud", "insert"])
        // A link to a file: the file is replaced, the link stays a link.
        try Output.write([1, 2, 3], to: dir + "/target.h264")
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.h264", withDestinationPath: dir + "/target.h264")
        try Self.run(ConvertCommand.self, [Self.fixtures + "/main-cabac-bframes.264", dir + "/link.h264", "--to", "annexb",
                                           "--aud", "insert"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.h264") == dir + "/target.h264")
        #expect(Support.readFile(dir + "/target.h264").count > 100)
        #expect(Self.files(in: dir) == ["out.mp4", "target.h264", "link.h264"])
    }

    /// `encode` from a Y4M file cut inside its fourth frame: the command fails, nothing has the
    /// output's name, and the three frames encoded are kept (a finished MP4) under the
    /// temporary name.
    @Test func failedEncodeKeepsThePartialOutputUnderItsTemporaryName() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (w, h) = (64, 32)
        var y4m = Array("YUV4MPEG2 W\(w) H\(h) F25:1 Ip A1:1 C420jpeg\n".utf8)
        for i in 0..<4 {
            y4m += Array("FRAME\n".utf8)
            y4m += (0..<(w * h * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 &+ i) }
        }
        try Output.write(Array(y4m.dropLast(100)), to: dir + "/cut.y4m")
        #expect(throws: H264VideoError(.truncated, "")) {
            try Self.run(EncodeCommand.self, [dir + "/cut.y4m", "-o", dir + "/out.mp4", "--preset", "ultrafast", "--threads", "1"])
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
        let kept = dir + "/.out.mp4.partial-\(getpid())"
        #expect(Self.files(in: dir) == ["cut.y4m", ".out.mp4.partial-\(getpid())"])
        #expect(try MP4Reader(try MP4File(readingAtPath: kept)).videoTrack?.sampleCount == 3)
    }

    /// `segment` that fails after writing segments, into a directory a finished run filled:
    /// the earlier playlist is removed (its segments are being overwritten); a run that fails
    /// before writing anything leaves the directory alone.
    @Test func failedSegmentationLeavesNoPlaylist() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hls = dir + "/hls"
        try Self.run(ConvertCommand.self, [Self.fixtures + "/main-cabac-bframes.264", dir + "/in.mp4"])
        try Self.run(SegmentCommand.self, [dir + "/in.mp4", "-o", hls])
        #expect(FileManager.default.fileExists(atPath: hls + "/index.m3u8"))

        #expect(throws: CLIError.self) { try Self.run(SegmentCommand.self, [dir + "/missing.mp4", "-o", hls]) }
        #expect(FileManager.default.fileExists(atPath: hls + "/index.m3u8"), "a run that wrote nothing removed the playlist")

        // The MP4 cut inside its media: the samples after the cut cannot be read.
        let file = Support.readFile(dir + "/in.mp4")
        try Output.write(Array(file.dropLast(200)), to: dir + "/cut.mp4")
        #expect(throws: MP4Error.self) { try Self.run(SegmentCommand.self, [dir + "/cut.mp4", "-o", hls]) }
        #expect(!FileManager.default.fileExists(atPath: hls + "/index.m3u8"))
    }
}
