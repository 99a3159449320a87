import Foundation

/// Paths, external tools and processes for the FLV and RTMP tests.
public enum Support {
    /// The package root, found from this file's path.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `../shared/corpus` next to the package root (or one level further up, for a checkout
    /// in a subfolder such as a git worktree).
    public static let corpus: String = {
        let candidates = [root + "/../shared/corpus", root + "/../../shared/corpus"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }()

    /// A corpus file's path.
    public static func corpusFile(_ name: String) -> String { corpus + "/" + name }

    public static var hasCorpus: Bool { FileManager.default.fileExists(atPath: corpusFile("flv/node-flv_test.flv")) }

    /// The full path of a program on PATH, or nil.
    public static func which(_ program: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public static var hasFFmpeg: Bool { which("ffmpeg") != nil && which("ffprobe") != nil }

    /// Runs a program and returns its exit status, stdout and stderr.
    @discardableResult
    public static func run(_ program: String, _ args: [String]) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(program) ?? program)
        p.arguments = args
        let out = Pipe()
        let errPath = NSTemporaryDirectory() + "h264tests-stderr-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        let err = FileHandle(forWritingAtPath: errPath)
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try? err?.close()
        return (p.terminationStatus, [UInt8](stdout), String(decoding: readFile(errPath), as: UTF8.self))
    }

    /// A file's bytes ([] when it cannot be read). An empty file is not handed to Foundation,
    /// whose file reading leaks its buffer for a 0-byte file (LeakSanitizer reports it).
    public static func readFile(_ path: String) -> [UInt8] {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0, let data = FileManager.default.contents(atPath: path) else { return [] }
        return [UInt8](data)
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "h264tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `ffprobe -show_packets` of the video stream: (pts, dts, keyframe) per packet.
    public static func probePackets(_ path: String) throws -> (packets: [(pts: Int64, dts: Int64, key: Bool)], errors: String) {
        let r = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,dts,flags",
                                    "-of", "csv=p=0", path])
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        let packets = lines.map { line -> (pts: Int64, dts: Int64, key: Bool) in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            return (Int64(f[0]) ?? -1, Int64(f[1]) ?? -1, f[2].hasPrefix("K"))
        }
        return (packets, r.stderr)
    }

    /// For each frame of an Annex-B stream in decoding order, its index in output order, as
    /// FFmpeg decodes it (frames are listed in output order with their decoding index).
    public static func presentationOrder(_ path: String) throws -> [Int] {
        let r = try run("ffprobe", ["-v", "error", "-show_entries", "frame=coded_picture_number", "-of", "csv=p=0", path])
        let coded = String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { Int($0.filter(\.isNumber)) }
        var order = Array(coded.indices)
        for (p, d) in coded.enumerated() where d < order.count { order[d] = p }
        return order
    }
}
