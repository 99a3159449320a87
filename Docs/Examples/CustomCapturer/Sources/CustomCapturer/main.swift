// A custom capturer (a FrameSource with its own thread) -> encoder -> Annex-B file. The
// capturer's consumer runs on the capture thread; X264Encoder is Sendable, so it is called
// right there.
import Foundation
import H264
import Synchronization
import X264

let outDir = try outputDirectory()
var config = X264Encoder.Options(width: 640, height: 360)
config.pixelFormat = .bgra            // converted to I420 (BT.601, limited range) by the encoder
config.rateControl = .averageBitrate(800_000)
config.maxKeyframeInterval = 30
let encoder = try X264Encoder(options: config)

let output = Mutex<(stream: [UInt8], keyframes: [Int], count: Int, error: (any Error)?)>(([], [], 0, nil))
@Sendable func write(_ frames: [EncodedFrame]) {
    output.withLock { out in
        for frame in frames {
            if frame.isSyncSample { out.keyframes.append(out.count) }
            out.stream += frame.annexBSample(parameterSets: encoder.parameterSets)  // SPS/PPS before each IDR
            out.count += 1
        }
    }
}

let capturer = Capturer(frameCount: 90)   // a FrameSource: start keeps the consumer, returns at once
try capturer.start { frame in
    do { write(try encoder.encode(frame)) } catch { output.withLock { $0.error = $0.error ?? error }; throw error }
}
capturer.waitUntilFinished()          // a service would call capturer.stop() when the call ends
write(try encoder.flush())

let (stream, keyframes, count, error) = output.withLock { $0 }
if let error { throw error }
let path = "\(outDir)/capturer.h264"
try Data(stream).write(to: URL(fileURLWithPath: path))
print("wrote \(path): \(count) frames, \(stream.count) bytes")

// Checks.
check(count == 90, "\(count) frames out of 90")
checkKeyframes(keyframes, frameCount: count, forced: [], maxInterval: 30)
try checkDecodesInFFmpeg(path, frames: 90)
try checkRotation(path, degrees: 90)
