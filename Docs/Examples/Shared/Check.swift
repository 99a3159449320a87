// The examples' self-checks (not part of what a user writes): each example states what its
// output must be and exits with status 1 when it is not. Linked into every example's target.
import Foundation
import H264

/// Stops the example with a failure unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if condition { return }
    FileHandle.standardError.write(Data("check failed: \(message())\n".utf8))
    exit(1)
}

/// Prints a passed check.
func passed(_ message: String) { print("ok: \(message)") }

/// The first of `names` found on PATH.
func tool(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let path = "\(dir)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// Runs a tool; returns its exit status, standard output and standard error.
func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// Checks that FFmpeg decodes `file` without a single error and finds `frames` pictures
/// (skipped with a reason when ffmpeg/ffprobe are not installed).
func checkDecodesInFFmpeg(_ file: String, frames: Int) throws {
    guard let ffmpeg = tool("ffmpeg"), let ffprobe = tool("ffprobe") else {
        print("skipped: FFmpeg decode check of \(file) (ffmpeg/ffprobe not on PATH)")
        return
    }
    let decode = try run(ffmpeg, ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"])
    check(decode.status == 0 && decode.err.isEmpty, "ffmpeg decoding \(file): \(decode.err)")
    let count = try run(ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                  "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
    // The first line: an HLS playlist also gets a line for its program.
    let decoded = count.out.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    check(decoded == frames, "ffmpeg decodes \(decoded) frames of \(file), expected \(frames)")
    passed("FFmpeg decodes \(file) cleanly: \(frames) frames")
}

/// Checks the keyframe rules of a stream: the first frame and every forced one are keyframes,
/// and no two keyframes are more than `maxInterval` frames apart.
func checkKeyframes(_ keyframes: [Int], frameCount: Int, forced: [Int], maxInterval: Int) {
    check(keyframes.first == 0, "the first frame is a keyframe: \(keyframes)")
    for f in forced { check(keyframes.contains(f), "forced keyframe at \(f): \(keyframes)") }
    for (a, b) in zip(keyframes, keyframes.dropFirst() + [frameCount]) {
        check(b - a <= maxInterval, "keyframes \(a) and \(b) more than \(maxInterval) frames apart")
    }
    passed("keyframes at \(keyframes) (at most \(maxInterval) apart, forced \(forced))")
}

/// The output directory: the first argument, created if needed.
func outputDirectory() throws -> String {
    guard CommandLine.arguments.count > 1 else {
        FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) OUTDIR [...]\n".utf8))
        exit(2)
    }
    let dir = CommandLine.arguments[1]
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Checks that an Annex-B stream has SPS and PPS right before each of its `keyframes` IDR
/// pictures and nowhere else.
func checkParameterSetsBeforeKeyframes(_ annexB: [UInt8], keyframes: Int) throws {
    let types: [NALUnitType] = try AnnexB.split(annexB).map(\.type)
    var pairs = 0
    for i in types.indices.dropLast() where types[i] == NALUnitType.sps {
        check(types[i + 1] == NALUnitType.pps, "an SPS without its PPS at NAL unit \(i)")
        pairs += 1
    }
    check(pairs == keyframes, "SPS+PPS \(pairs) times for \(keyframes) keyframes")
    passed("SPS and PPS before each of the \(keyframes) keyframes")
}

/// Checks that FFmpeg reads a display rotation of `degrees` clockwise from the stream's first
/// frame (the display orientation SEI), skipped when ffprobe is not installed.
func checkRotation(_ file: String, degrees: Int) throws {
    guard let ffprobe = tool("ffprobe") else {
        print("skipped: orientation check of \(file) (ffprobe not on PATH)")
        return
    }
    let probe = try run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                  "-show_entries", "frame_side_data=rotation", "-of", "csv=p=0", file])
    let rotation = probe.out.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.first
    // FFmpeg reports the display matrix's anticlockwise angle: -90 for 90 degrees clockwise.
    check(rotation.map { (-$0 % 360 + 360) % 360 } == degrees % 360, "rotation \(String(describing: rotation)) in \(file), expected \(degrees) clockwise")
    passed("FFmpeg displays \(file) rotated \(degrees) degrees clockwise")
}
