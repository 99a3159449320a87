import FLV
import H264
import X264
import Testing

/// The snippets of the FLV catalog (Sources/FLV/FLV.docc); each marked region is shown, as it
/// is, in an article (Docs/check-snippets.py checks it).
@Suite struct FLVSnippets {
    @Test func flvFromEncoder() throws {
        let frames = try SnippetSupport.frames(count: 45, width: 640, height: 360)
        var config = X264Encoder.Options(width: 640, height: 360)
        config.maxKeyframeInterval = 30
        let encoder = try X264Encoder(options: config)   // B-frames: a negative first DTS
        // snippet: flv-writer
        var flv = FLVWriter()
        var builder = FLVSampleBuilder(parameterSets: encoder.parameterSets)
        try flv.writeMetadata(FLVMetadata(width: 640, height: 360, frameRate: 30, videoDataRate: 640))
        for frame in frames {
            for encoded in try encoder.encode(frame) { try flv.write(builder.sample(encoded)) }
        }
        for encoded in try encoder.flush() { try flv.write(builder.sample(encoded)) }
        try flv.writeEndOfSequence()
        // flv.bytes (or flv.takeBytes() as you go) is the file.
        // end snippet
        let track = try FLVVideoTrack(reading: flv.bytes)
        #expect(track.metadata?.width == 640)
        #expect(track.segments.count == 1)
        #expect(track.hasEndOfSequence)
        let samples = track.samples
        #expect(samples.count == frames.count)
        #expect(samples.filter(\.isKeyframe).count == 2)            // frames 0 and 30
        #expect(samples.first?.isKeyframe == true)
        #expect(samples.allSatisfy { $0.dts >= 0 && $0.pts >= $0.dts })   // shifted, never negative
        // 30 frames a second: the last presentation time is 44 frames after the first's, in ms.
        let span = samples.map(\.pts).max()! - samples.map(\.pts).min()!
        #expect(abs(span - 1467) <= 1)
    }
}
