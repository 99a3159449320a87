import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FLV
import H264
import MP4
import Testing
import TestSupport

/// A recording that meets the process's file-size limit (`RLIMIT_FSIZE`, SIGXFSZ ignored: every
/// write past it fails with EFBIG, as a full disk fails with ENOSPC) stops with an error naming
/// the file and the bytes, and what it leaves ends with a whole unit: fragmented MP4 up to its
/// last whole fragment, FLV up to its last whole tag, Annex-B up to its last whole access unit;
/// FFmpeg reads each to its end without an error.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil && Support.which("prlimit") != nil && FFmpeg.isPresent,
                "needs the h264 executable, prlimit (util-linux) and ffmpeg"))
struct FileSizeLimitTests {
    static let limit = 120_000

    /// Runs `h264 encode` with a file-size limit of `limit` bytes and SIGXFSZ ignored.
    static func encode(to path: String) throws -> Support.ProcessResult {
        let binary = try #require(CLIRobustnessTests.binary)
        let args = ["encode", "-o", path, "--size", "320x180", "--frames", "3000", "--preset", "ultrafast", "--threads", "1"]
        return try Support.run("/bin/sh", ["-c", "trap '' XFSZ; exec prlimit --fsize=\(limit) -- \"$@\"", "sh", binary] + args,
                               timeout: 120)
    }

    /// The file a failed `encode -o DIR/NAME` keeps (under its temporary name).
    static func kept(_ dir: String, _ name: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("." + name + ".partial-") }
        #expect(names.count == 1, "\(names)")
        return dir + "/" + (try #require(names.first))
    }

    @Test(arguments: ["out.mp4", "out.flv", "out.h264"])
    func aRecordingAtTheLimitEndsWithAWholeUnit(_ name: String) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.encode(to: dir + "/" + name)
        #expect(r.status == 1 && !r.signalled, "\(r.stderr)")
        #expect(r.stderr.contains(String(cString: strerror(EFBIG))), "\(r.stderr)")
        #expect(r.stderr.contains("partial output kept"), "\(r.stderr)")
        let path = try Self.kept(dir, name)
        // The MP4 recorder writes its file under the temporary name, the others name the output.
        #expect(r.stderr.contains("cannot write '\(name == "out.mp4" ? path : dir + "/" + name)' after "), "\(r.stderr)")
        let bytes = Support.readFile(path)
        #expect(bytes.count > 10_000 && bytes.count <= Self.limit, "\(bytes.count) bytes")

        let probe = try FFmpeg.packets(path)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count > 10)
        #expect(probe.packets.first?.key == true)
        let decode = try FFmpeg.decode(path)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

        switch name {
        case "out.mp4":
            #expect(r.stderr.contains("keeps its whole fragments"), "\(r.stderr)")
            let reader = try MP4Reader(bytes)
            #expect(try reader.sampleInfos(of: try #require(reader.videoTrack)).count == probe.packets.count)
        case "out.flv":
            #expect(r.stderr.contains("ending with a whole unit"), "\(r.stderr)")
            var reader = try FLVReader(bytes)
            var video = 0
            while let tag = try reader.nextTag() { if tag.type == .video { video += 1 } }
            #expect(video == probe.packets.count + 1, "every tag whole: the sequence header and one per frame")
        default:
            #expect(r.stderr.contains("ending with a whole unit"), "\(r.stderr)")
            let units = AccessUnits.assemble(annexB: bytes[...]).accessUnits.filter { !$0.flags.hasNoPicture }
            #expect(units.count == probe.packets.count)
            #expect(units.last.map { $0.nalUnits.allSatisfy { !$0.bytes.isEmpty } } == true)
        }
    }
}
