// avcC + AVCC samples (what an MP4 demuxer or VideoToolbox hands over) -> the stream's facts,
// its keyframes, an Annex-B file, and each frame's decode and presentation time.
import Foundation
import H264

let outDir = try outputDirectory()
let input = try makeInput()           // the avcC record and AVCC samples, made by an encoder

// The record: size, profile, level, sample aspect ratio, frame rate.
let record = try AVCDecoderConfigurationRecord(parsing: input.avcC)
let sps = try SequenceParameterSet(rbsp: record.sequenceParameterSets[0].rbsp)
let sar = sps.sampleAspectRatio.map { "\($0.width):\($0.height)" } ?? "unspecified"
let rate = sps.frameRate.map { "\(Double($0.numerator) / Double($0.denominator))" } ?? "unspecified"
print("\(sps.width)x\(sps.height) \(sps.profileName) level \(sps.levelName), SAR \(sar), \(rate) fps")

// The samples: Annex-B (SPS/PPS before keyframes), access units with keyframes and timestamps.
let annexB = try FormatConversion.avccToAnnexB(Array(input.samples.joined())[...], configuration: record)
let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...])
for au in accessUnits {
    let t = au.timestamps(timescale: 1000)!
    print("frame \(au.index): dts \(t.dts) ms, pts \(t.pts) ms\(au.flags.isSync ? ", keyframe (IDR)" : "")")
}
let path = "\(outDir)/samples.h264"
try Data(annexB).write(to: URL(fileURLWithPath: path))

// Checks: the facts the encoder was given, its keyframes and its presentation times.
check(errors.isEmpty, "errors: \(errors)")
check(sps.width == 640 && sps.height == 360 && sps.profileName == "High" && sar == "4:3" && rate == "25.0",
      "stream facts \(sps.width)x\(sps.height) \(sps.profileName) SAR \(sar) \(rate)")
check(accessUnits.count == input.samples.count, "\(accessUnits.count) access units of \(input.samples.count) samples")
let keyframes = accessUnits.filter(\.flags.isSync).map(\.index)
check(keyframes == input.keyframes, "keyframes \(keyframes), the encoder's \(input.keyframes)")
// From the bitstream alone the first DTS is 0 and PTS run a reorder delay behind it; the
// encoder's PTS started at 0, so the two differ by that delay.
let pts = accessUnits.map { $0.timestamps(timescale: 1000)!.pts }.sorted()
check(pts.map { $0 - pts[0] } == input.pts, "presentation times \(pts) are the encoder's \(input.pts) + a delay")
check(zip(accessUnits, accessUnits.dropFirst()).allSatisfy { $0.dts! < $1.dts! }, "DTS increase")
passed("\(accessUnits.count) frames, keyframes \(keyframes), the encoder's PTS (+ \(pts[0]) ms), increasing DTS")
try checkDecodesInFFmpeg(path, frames: input.samples.count)
