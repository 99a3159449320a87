import H264
import X264
import Testing

/// The snippets of the X264 catalog (Sources/X264/X264.docc); each marked region is shown, as
/// it is, in an article (Docs/check-snippets.py checks it).
@Suite struct X264Snippets {
    @Test func encodeAndFlush() throws {
        let frames = try SnippetSupport.frames(count: 20, width: 640, height: 360, format: .nv12)
        // snippet: x264-encode
        var config = X264Encoder.Options(width: 640, height: 360)
        config.pixelFormat = .nv12
        config.rateControl = .averageBitrate(512_000)
        config.profile = .baseline
        config.realTime = true
        let encoder = try X264Encoder(options: config)

        var samples: [[UInt8]] = []
        for frame in frames {                           // VideoFrame, strictly increasing pts
            for au in try encoder.encode(frame) { samples.append(try au.avccSample()) }
        }
        for au in try encoder.flush() { samples.append(try au.avccSample()) }
        let avcC = try encoder.decoderConfiguration    // SPS/PPS: out of band by default, as VideoToolbox
        // end snippet
        #expect(samples.count == frames.count)
        let sps = try SequenceParameterSet(rbsp: avcC.sequenceParameterSets[0].rbsp)
        #expect(sps.width == 640 && sps.height == 360)
        #expect(sps.profileIDC == 66)
        let first = try AVCC.split(samples[0], lengthSize: avcC.nalUnitLengthSize)
        #expect(first.contains { $0.type == .idrSlice })
        #expect(!first.contains { $0.type == .sps })
    }
}
