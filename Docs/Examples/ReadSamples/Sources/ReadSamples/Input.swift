// The example's input, as a demuxer would hand it over: an avcC record and AVCC samples, here
// from X264Encoder (640x360 High with B-frames, SAR 4:3, 25 fps, a keyframe every 25 frames),
// with what the encoder said about them to check against.
import H264
import H264Video
import X264

func makeInput() throws -> (avcC: [UInt8], samples: [[UInt8]], keyframes: [Int], pts: [Int64]) {
    var config = X264Encoder.Options(width: 640, height: 360)
    config.expectedFrameRate = 25
    config.pixelAspectRatio = (4, 3)
    config.maxKeyframeInterval = 25
    let encoder = try X264Encoder(options: config)
    let source = try TestPatternSource(width: 640, height: 360, frameRate: (25, 1), frameCount: 60)
    var frames: [EncodedFrame] = []
    for i in 0..<60 { frames += try encoder.encode(source.makeFrame(i)) }
    frames += try encoder.flush()
    let avcC = try encoder.decoderConfiguration.serialized()
    let keyframes = frames.indices.filter { frames[$0].isSyncSample }
    let pts = frames.map { $0.pts * 1000 / Int64($0.timescale) }.sorted()
    return (avcC, try frames.map { try $0.avccSample() }, keyframes, pts)
}
