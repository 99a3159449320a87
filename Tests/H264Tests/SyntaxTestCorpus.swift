import Foundation
@testable import H264

/// The shared public corpus (`../shared/corpus` from the package root), when present.
enum SyntaxTestCorpus {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/corpus` from the package root; a git worktree nested one level deeper also
    /// finds `../../shared/corpus`.
    static let directory: URL = {
        var dir = root.deletingLastPathComponent()
        for _ in 0..<2 {
            let candidate = dir.appendingPathComponent("shared/corpus")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()
    static var isPresent: Bool { FileManager.default.fileExists(atPath: directory.path) }

    /// Every Annex-B stream of the corpus (relative paths), sorted.
    static let streams: [String] = {
        guard let e = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        let exts: Set<String> = ["264", "h264", "jsv", "avc", "26l"]
        return e.compactMap { $0 as? String }.filter { exts.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }()

    static func bytes(_ name: String) -> [UInt8] {
        (try? Data(contentsOf: directory.appendingPathComponent(name))).map { [UInt8]($0) } ?? []
    }

    static func nalUnits(_ name: String) -> [NALUnit] {
        (try? AnnexB.split(bytes(name)[...], leadingData: .skip)) ?? []
    }

    static var ffmpegPresent: Bool {
        ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
