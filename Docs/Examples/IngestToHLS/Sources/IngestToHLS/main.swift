// An RTMP ingest service in one file: publishers in (OBS, FFmpeg, phones) -> HLS out, and
// players served by the same server.
//
//   swift run -c release --package-path Docs/Examples/IngestToHLS IngestToHLS OUTDIR
//
// The example publishes into itself: 3 s of video at real time from FFmpeg (H.264 with
// B-frames, and AAC, as an encoder sends it) when FFmpeg is installed, else from the library's
// own publisher (x264 over a test pattern); FFmpeg, when installed, also plays the stream
// through the server, joining 2 s in. The HLS output is OUTDIR/hls/index.m3u8.
import Foundation
import FLV
import H264
import H264Video
import MP4
import RTMP
import X264

let outDir = try outputDirectory()
let key = "example-key"

// The server: publishing needs the key (a server without a hook refuses every publish);
// anyone may play.
var options = RTMPServer.Options()
options.authorize = { request in request.streamName == key ? .allow : .reject(reason: "unknown stream key") }
let server = try RTMPServer(host: "127.0.0.1", port: 0, options: options)
let url = "rtmp://127.0.0.1:\(server.localPort)/live/\(key)"

// Each published stream's access units -> HLS (one stream here: the task ends with it).
let packaging = Task {
    var frames = 0
    for try await ingest in server.publishedStreams {
        let hls = HLSRecorder(directory: "\(outDir)/hls", targetDuration: .seconds(1))
        for try await event in ingest {
            if case .video(let accessUnit) = event {
                try hls.write(accessUnit)
                frames += 1
            }
        }
        try hls.finish()
        break
    }
    return frames
}

// A publisher, and a player joining 2 s in.
let frameCount = 90
var played: Process?
let playedFile = "\(outDir)/played.flv"
if let ffmpeg = tool("ffmpeg") {
    // A short lookahead, so that frames leave the encoder as they are made (x264's default
    // holds 40): the player then joins in the middle of the stream.
    let publisher = try start(ffmpeg, ["-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=44100",
                                       "-t", "3", "-c:v", "libx264", "-g", "30", "-bf", "2", "-x264-params", "rc-lookahead=5", "-c:a", "aac", "-f", "flv", url])
    try await Task.sleep(for: .seconds(2))
    played = try start(ffmpeg, ["-i", url, "-c", "copy", "-f", "flv", "-y", playedFile])
    publisher.waitUntilExit()
    check(publisher.terminationStatus == 0, "FFmpeg published to \(url)")
} else {
    let pattern = try TestPatternSource(width: 320, height: 240, frameRate: (30, 1), frameCount: frameCount)
    var x264 = X264Encoder.Options(width: 320, height: 240)
    x264.maxKeyframeIntervalDuration = 1  // a keyframe a second: 1 s segments
    let encoder = AsyncFrameEncoder(try X264Encoder(options: x264))
    let rtmp = try await AsyncRTMPPublisher(url: url, metadata: FLVMetadata(width: 320, height: 240, frameRate: 30),
                                            parameterSets: encoder.parameterSets)
    try await rtmp.publish(encoder.encodedFrames(from: pattern.frames()))
}
let frames = try await packaging.value
server.close()
print("packaged \(frames) frames from \(url)")

// Checks: every frame packaged, a finished playlist of segments that FFmpeg decodes whole,
// and a player that got the stream from a keyframe on.
check(frames == frameCount, "\(frames) access units received of \(frameCount)")
let playlist = try String(contentsOfFile: "\(outDir)/hls/index.m3u8", encoding: .utf8)
let segments = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }
check(playlist.hasSuffix("#EXT-X-ENDLIST\n") && segments.count >= 3, "a finished playlist of 3 segments: \(playlist)")
passed("HLS playlist with \(segments.count) segments")
try checkDecodesInFFmpeg("\(outDir)/hls/index.m3u8", frames: frameCount)
if let player = played, let ffprobe = tool("ffprobe") {
    player.waitUntilExit()
    check(player.terminationStatus == 0, "FFmpeg played \(url)")
    let probe = try run(ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", playedFile])
    let flags = probe.out.split(separator: "\n")
    // It starts at the last keyframe the server had (the GOP cache): a GOP boundary (30 frames).
    check(flags.first?.hasPrefix("K") == true && flags.count >= 30 && (frameCount - flags.count) % 30 == 0,
          "the player got \(flags.count) frames from a keyframe on")
    passed("a player joining late got \(flags.count) frames, from a keyframe to the end")
}

/// Starts a tool with its output discarded.
func start(_ path: String, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["-nostdin", "-v", "error"] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}
