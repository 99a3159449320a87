import Foundation

/// FFmpeg and ffprobe, the reference oracle, run through ``Support/run(_:_:timeout:)``, and the
/// readers of their outputs the tests share.
///
/// Tests that need them are enabled with `.enabled(if: FFmpeg.isPresent, ...)`.
public enum FFmpeg {
    /// Whether both `ffmpeg` and `ffprobe` are on PATH; under CI, true (a missing tool fails the
    /// tests instead of skipping them, see ``Tool``).
    public static let isPresent: Bool = Tool.required("ffmpeg and ffprobe",
                                                      present: Support.which("ffmpeg") != nil && Support.which("ffprobe") != nil)

    /// Runs `ffmpeg` (with `-hide_banner -nostdin`).
    @discardableResult
    public static func ffmpeg(_ args: [String], timeout: Double? = nil) throws -> Support.ProcessResult {
        try Support.run("ffmpeg", ["-hide_banner", "-nostdin"] + args, timeout: timeout)
    }

    /// Decodes a file to nothing (`ffmpeg -v error -i PATH -f null -`): a clean decode exits 0
    /// with an empty stderr.
    public static func decode(_ path: String) throws -> Support.ProcessResult {
        try ffmpeg(["-v", "error", "-i", path, "-f", "null", "-"])
    }

    /// Runs `ffprobe` (with `-hide_banner`).
    @discardableResult
    public static func ffprobe(_ args: [String]) throws -> Support.ProcessResult {
        try Support.run("ffprobe", ["-hide_banner"] + args)
    }

    /// One syntax element as FFmpeg's `trace_headers` bitstream filter prints it.
    public struct TraceElement: Equatable, Sendable, CustomStringConvertible {
        /// The bit position in the NAL unit (from its first header bit).
        public var position: Int
        /// The specification's element name, with FFmpeg's subscripts (`offset_for_ref_frame[0]`).
        public var name: String
        public var value: Int64

        public init(position: Int, name: String, value: Int64) {
            self.position = position
            self.name = name
            self.value = value
        }

        public var description: String { "(\(position), \(name), \(value))" }
    }

    /// The syntax elements of every NAL unit of the packets of a file (not of its extradata),
    /// as `trace_headers` prints them, in order; a NAL unit starts at its `forbidden_zero_bit`.
    ///
    /// - Parameters:
    ///   - inputOptions: before `-i` (default: read raw H.264).
    ///   - options: output options, such as `-frames:v N` or `-copyinkf`.
    /// - Throws: when FFmpeg fails.
    public static func traceHeaders(_ path: String, inputOptions: [String] = ["-f", "h264"],
                                    options: [String] = []) throws -> [[TraceElement]] {
        let r = try ffmpeg(["-nostats", "-v", "trace"] + inputOptions + ["-i", path, "-c", "copy"] + options
                           + ["-bsf:v", "trace_headers", "-f", "null", "-"]).checked("ffmpeg trace_headers \(path)")
        var units: [[TraceElement]] = []
        var inPackets = false
        for line in r.stderr.split(separator: "\n") where line.hasPrefix("[trace_headers") {
            guard let close = line.firstIndex(of: "]") else { continue }
            let body = line[line.index(after: close)...]
            if body.contains("Packet:") { inPackets = true }
            if body.contains("Extradata") { inPackets = false }
            guard inPackets else { continue }
            // "<position> <name> <bits> = <value>"
            let fields = body.split(separator: " ")
            guard fields.count >= 5, fields[fields.count - 2] == "=", let position = Int(fields[0]),
                  let value = Int64(fields[fields.count - 1]) else { continue }
            let name = String(fields[1])
            if name == "forbidden_zero_bit" && position == 0 { units.append([]) }
            if !units.isEmpty { units[units.count - 1].append(TraceElement(position: position, name: name, value: value)) }
        }
        return units
    }

    /// `ffprobe -show_packets` of the video stream: (pts, dts, keyframe) per packet.
    /// - Throws: when ffprobe fails.
    public static func packets(_ path: String) throws -> (packets: [(pts: Int64, dts: Int64, key: Bool)], errors: String) {
        let r = try ffprobe(["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts,flags",
                             "-of", "csv=p=0", path]).checked("ffprobe \(path)")
        let packets = r.output.split(separator: "\n").map { line -> (pts: Int64, dts: Int64, key: Bool) in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            return (Int64(f[0]) ?? -1, Int64(f.count > 1 ? f[1] : "") ?? -1, f.count > 2 && f[2].hasPrefix("K"))
        }
        return (packets, r.stderr)
    }

    /// For each frame of an Annex-B stream in decoding order, its index in output order, as
    /// FFmpeg decodes it (frames are listed in output order with their decoding index).
    /// - Throws: when ffprobe fails.
    public static func presentationOrder(_ path: String) throws -> [Int] {
        let r = try ffprobe(["-v", "error", "-show_entries", "frame=coded_picture_number", "-of", "csv=p=0", path])
            .checked("ffprobe \(path)")
        let coded = r.output.split(whereSeparator: \.isNewline).compactMap { Int($0.filter(\.isNumber)) }
        var order = Array(coded.indices)
        for (p, d) in coded.enumerated() where d < order.count { order[d] = p }
        return order
    }

    /// The decoded frames' MD5s of a file (`-f framemd5`, every frame kept).
    /// - Throws: when FFmpeg fails.
    public static func frameMD5s(file path: String, inputFormat: String? = nil) throws -> [Substring] {
        let r = try ffmpeg(["-loglevel", "error"] + (inputFormat.map { ["-f", $0] } ?? []) + ["-i", path,
                            "-fps_mode", "passthrough", "-f", "framemd5", "-"]).checked("ffmpeg framemd5 \(path)")
        return frameMD5s(output: r.output)
    }

    /// The decoded frames of a file as (presentation time in the stream's time base, MD5):
    /// timestamps as the file has them (`-copyts`), every frame at its own size (no scaling
    /// after a resolution change), every frame kept.
    /// - Returns: the frames, and what FFmpeg printed on stderr (empty for a clean decode).
    /// - Throws: when FFmpeg cannot be run.
    public static func timedFrameMD5s(file path: String) throws -> (frames: [(pts: Int64, md5: Substring)], errors: String) {
        let r = try ffmpeg(["-loglevel", "error", "-i", path, "-copyts", "-autoscale", "0", "-enc_time_base", "-1",
                            "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        var frames: [(pts: Int64, md5: Substring)] = []
        for line in r.output.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 6, let pts = Int64(fields[2]) else { continue }
            frames.append((pts, fields[5][...]))
        }
        return (frames, r.succeeded ? r.stderr : r.stderr + " (exit \(r.status))")
    }

    /// The MD5 column of FFmpeg's framemd5 output.
    public static func frameMD5s(output: String) -> [Substring] {
        output.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces)[...] } }
    }
}
