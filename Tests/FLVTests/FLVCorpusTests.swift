import Foundation
import TestSupport
import Testing
import H264
@testable import FLV

/// Real files: the corpus FLVs, and FLVs written from corpus Annex-B streams, checked with
/// FFmpeg.
@Suite struct FLVCorpusTests {
    static func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path(name))))
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"),
          arguments: ["flv/rflv_file.flv", "flv/rflv_test.flv"])
    func annexBSequenceHeaderIsRejected(_ name: String) throws {
        let bytes = try Self.read(name)
        #expect(throws: FLVError(.invalidDecoderConfiguration, "")) { try FLVVideoTrack(reading: bytes) }
    }

    /// `node-flv_test.flv` to Annex-B gives the NAL units that FFmpeg's h264_mp4toannexb gives.
    /// FFmpeg inserts SPS/PPS right before the IDR slice (after SEI); we insert them after the
    /// AUD, before SEI. So the lists are compared with parameter sets taken out, and the
    /// parameter sets are compared as the sequence FFmpeg emits them.
    @Test(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffmpeg"))
    func nodeFLVToAnnexBMatchesFFmpeg() throws {
        let path = Corpus.path("flv/node-flv_test.flv")
        let ours = try AnnexB.split(try FLVConversion.flvToAnnexB(try Self.read("flv/node-flv_test.flv")))
        let ff = try Support.run("ffmpeg", ["-v", "error", "-i", path, "-c:v", "copy", "-bsf:v", "h264_mp4toannexb",
                                            "-an", "-f", "h264", "-"])
        #expect(ff.status == 0)
        let theirs = try AnnexB.split(ff.stdout)
        #expect(theirs.count > 300)
        let strip = { (u: [NALUnit]) in u.filter { !$0.type.isParameterSet }.map { Array($0.bytes) } }
        #expect(strip(ours) == strip(theirs))
        let params = { (u: [NALUnit]) in u.filter { $0.type.isParameterSet }.map { Array($0.bytes) } }
        #expect(params(ours) == params(theirs))
        #expect(ours.count == theirs.count)
    }

    /// node-flv_test.flv (B-frames, composition times) read and written again: FFmpeg sees the
    /// same packets (pts, dts, keyframe) as in the original.
    @Test(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffprobe"))
    func rewriteKeepsCompositionTimes() throws {
        let track = try FLVVideoTrack(reading: try Self.read("flv/node-flv_test.flv"))
        var w = FLVWriter()
        try w.writeMetadata(FLVMetadata(width: 1280, height: 720, frameRate: track.metadata?.frameRate))
        for segment in track.segments {
            try w.writeDecoderConfiguration(Array(segment.decoderConfiguration), timestamp: segment.samples.first?.dts ?? 0)
            for s in segment.samples { try w.writeSample(s) }
        }
        try w.writeEndOfSequence()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/rewritten.flv"
        try Data(w.bytes).write(to: URL(fileURLWithPath: out))
        let original = try FFmpeg.packets(Corpus.path("flv/node-flv_test.flv"))
        let rewritten = try FFmpeg.packets(out)
        #expect(rewritten.errors.isEmpty, "\(rewritten.errors)")
        #expect(rewritten.packets.count == 300)
        #expect(rewritten.packets.map(\.pts) == original.packets.map(\.pts))
        #expect(rewritten.packets.map(\.dts) == original.packets.map(\.dts))
        #expect(rewritten.packets.map(\.key) == original.packets.map(\.key))
        #expect(rewritten.packets.contains { $0.pts != $0.dts })
        let decode = try FFmpeg.decode(out)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// Corpus Annex-B streams written as FLV: every frame, keyframes at the IDRs, no errors.
    @Test(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffprobe"),
          arguments: ["cros-codecs/test-25fps.h264", "cros-codecs/64x64-I-P-B-P-high.h264", "hibernia/CANL1_TOSHIBA_G.264"])
    func annexBToFLVPlays(_ name: String) throws {
        let path = Corpus.path(name)
        try #require(FileManager.default.fileExists(atPath: path), "\(path) is missing from the corpus")
        let annexB = try Self.read(name)
        let accessUnits = AccessUnits.assemble(annexB: annexB[...]).accessUnits
        let idrs = accessUnits.map(\.isRandomAccessPoint)
        // FFmpeg's output order: our presentation times must agree with it.
        let order = try FFmpeg.presentationOrder(path)
        #expect(order.count == accessUnits.count)
        let delay = order.enumerated().map { $0.offset - $0.element }.max() ?? 0
        let flv = try FLVConversion.annexBToFLV(annexB, timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.flv"
        try Data(flv).write(to: URL(fileURLWithPath: out))
        let probe = try FFmpeg.packets(out)
        #expect(probe.errors.isEmpty, "\(probe.errors)")
        #expect(probe.packets.count == accessUnits.count)
        // Keyframes where sent (FFmpeg's parser may flag more, e.g. I pictures with SPS/PPS).
        #expect(zip(probe.packets, idrs).allSatisfy { $0.key || !$1 })
        #expect(try FLVVideoTrack(reading: flv).samples.map(\.isKeyframe) == idrs)
        #expect(probe.packets.map(\.dts) == (0..<accessUnits.count).map { Int64($0 * 40) })
        #expect(probe.packets.map(\.pts) == order.map { Int64(($0 + max(delay, 0)) * 40) })
        let frames = try Support.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
        let source = try Support.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        #expect(String(decoding: frames.stdout, as: UTF8.self) == String(decoding: source.stdout, as: UTF8.self))
        let decode = try FFmpeg.decode(out)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        // Our reader gives the same access units back.
        let back = try AnnexB.split(try FLVConversion.flvToAnnexB(flv))
        #expect(back.count == accessUnits.map(\.nalUnits.count).reduce(0, +))
    }
}
