// Raw BGRA frames -> 640 kb/s H.264 -> FLV file (and an RTMP server when a URL is given).
//
//   ffmpeg -f lavfi -i testsrc2=size=640x360:rate=30 -t 4 -pix_fmt bgra -f rawvideo - |
//       swift run -c release --package-path Docs/Examples/BGRAToFLV BGRAToFLV OUTDIR 640x360 [rtmp://host/app/key]
//
// With a WIDTHxHEIGHT argument the frames come from standard input (30 fps); without one the
// example makes 120 frames of its own.
import Foundation
import FLV
import H264
import H264Video
import RTMP
import X264

let outDir = try outputDirectory()
let arguments = CommandLine.arguments.dropFirst(2)
let url = arguments.first { $0.hasPrefix("rtmp://") }
let size = arguments.first { !$0.hasPrefix("rtmp://") }?.split(separator: "x").compactMap { Int($0) }
let (width, height) = size.map { ($0[0], $0[1]) } ?? (640, 360)

var config = X264Encoder.Options(width: width, height: height)
config.pixelFormat = .bgra
config.rateControl = .averageBitrate(640_000)
config.maxKeyframeIntervalDuration = 2
let encoder = try X264Encoder(options: config)

// Frames: standard input, or made here.
let read: @Sendable () throws -> [UInt8]? = size != nil
    ? { let d = FileHandle.standardInput.readData(ofLength: 1 << 20); return d.isEmpty ? nil : [UInt8](d) }
    : generatedFrames(width: width, height: height, count: 120)
let source = try RawFrameSource(width: width, height: height, format: .bgra, frameRate: (30, 1), read: read)

// FLV: onMetaData, the AVC sequence header, a tag per frame (milliseconds, composition time and
// the shift of a negative first DTS done by FLVSampleBuilder), end of sequence.
let metadata = FLVMetadata(width: width, height: height, frameRate: 30, videoDataRate: 640)
var flv = FLVWriter()
var builder = FLVSampleBuilder(parameterSets: encoder.parameterSets)
try flv.writeMetadata(metadata)
let rtmp = try url.map { try RTMPVideoPublisher(url: $0, metadata: metadata, parameterSets: encoder.parameterSets) }
@MainActor func send(_ frames: [EncodedFrame]) throws {
    for frame in frames {
        try flv.write(builder.sample(frame))
        try rtmp?.send(frame)
    }
}
var captured = 0
// A pull source calls its consumer on the thread that called start: here, the main thread.
try source.start { frame in try MainActor.assumeIsolated { captured += 1; try send(encoder.encode(frame)) } }
try send(encoder.flush())
try flv.writeEndOfSequence()
if let stats = try rtmp?.finish() { print("rtmp: \(stats)") }
let path = "\(outDir)/frames.flv"
try Data(flv.bytes).write(to: URL(fileURLWithPath: path))
print("wrote \(path): \(flv.bytes.count) bytes")

// Checks: every frame is a tag, keyframes at most 2 s apart, FFmpeg decodes it all.
let track = try FLVVideoTrack(reading: flv.bytes)
let frames = track.samples.count
let keyframes = track.samples.indices.filter { track.samples[$0].isKeyframe }
check(frames == captured && (size != nil || frames == 120), "\(frames) FLV samples of \(captured) frames")
checkKeyframes(keyframes, frameCount: frames, forced: [], maxInterval: 60)
check(zip(track.samples, track.samples.dropFirst()).allSatisfy { $0.dts < $1.dts }, "FLV DTS increase")
try checkDecodesInFFmpeg(path, frames: frames)
