// Capture -> encode -> Annex-B file: what an iOS app does with AVCaptureSession,
// VTCompressionSession and an Annex-B writer, on Linux with libx264.
import Foundation
import H264
import X264

let outDir = try outputDirectory()
let width = 1280, height = 720, frameCount = 150, forcedKeyframe = 45

// The encoder: 512 kb/s, Baseline 3.1, real time, no reordering, a keyframe at least every
// 60 frames and 2 seconds; SPS/PPS only in the avcC (the default, as VideoToolbox).
var config = X264Encoder.Options(width: width, height: height)
config.pixelFormat = .nv12
config.rateControl = .averageBitrate(512_000)
config.profile = .baseline
config.level = ProfileLevel.Level("3.1")
config.realTime = true
config.allowFrameReordering = false
config.maxKeyframeInterval = 60
config.maxKeyframeIntervalDuration = 2
let encoder = try X264Encoder(options: config)

// Encode: AVCC samples (what VideoToolbox hands out), a forced keyframe, complete frames at the end.
var encoded: [EncodedFrame] = []
for i in 0..<frameCount {
    let frame = try cameraFrame(i, width: width, height: height)
    encoded += try encoder.encode(frame, options: FrameEncodeOptions(forceKeyframe: i == forcedKeyframe))
}
encoded += try encoder.flush()
let samples = try encoded.map { try $0.avccSample() }
let keyframes = encoded.indices.filter { encoded[$0].isSyncSample }
let avcC = try encoder.decoderConfiguration

// avcC + AVCC samples -> Annex-B, with SPS and PPS before every keyframe.
let annexB = try FormatConversion.avccToAnnexB(Array(samples.joined())[...], configuration: avcC)
let path = "\(outDir)/capture.h264"
try Data(annexB).write(to: URL(fileURLWithPath: path))
print("wrote \(path): \(samples.count) frames, \(annexB.count) bytes")

// Checks.
check(samples.count == frameCount, "\(samples.count) frames out of \(frameCount)")
checkKeyframes(keyframes, frameCount: frameCount, forced: [forcedKeyframe], maxInterval: 60)
try checkParameterSetsBeforeKeyframes(annexB, keyframes: keyframes.count)
check(avcC.profileIndication == 66 && avcC.levelIndication == 31, "Baseline 3.1 in the avcC")
passed("Baseline level 3.1 in the avcC")
try checkDecodesInFFmpeg(path, frames: frameCount)
