/// The streams of the shared test corpus (`../shared/corpus`, located by ``Support``), by
/// kind. The corpus is absent on a fresh clone; tests that use it are enabled only when it is
/// present.
import Foundation
import H264
import TestSupport

enum CorpusFiles {
    /// The corpus folder (``Support/corpus``), if present.
    static let root: URL? = FileManager.default.fileExists(atPath: Support.corpus)
        ? URL(fileURLWithPath: Support.corpus) : nil

    static var isPresent: Bool { root != nil }

    /// The Annex-B elementary streams of the corpus (relative paths such as `openh264/BA_MW_D.264`).
    static let annexBStreams: [String] = isPresent ? CorpusStreams.annexB : []

    /// The MP4 files of the corpus that carry an `avcC` box.
    static let mp4Files: [String] = {
        guard let root else { return [] }
        var out: [String] = []
        for folder in ["mp4ff", "mp4parse-rust"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            for name in names.sorted() where name.hasSuffix(".mp4") {
                let path = folder + "/" + name
                if let bytes = try? read(path), AVCCBox.find(in: bytes) != nil { out.append(path) }
            }
        }
        return out
    }()

    static func url(_ relative: String) -> URL { root!.appendingPathComponent(relative) }

    static func read(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }
}

/// Finds the payload of the `avcC` box in an MP4 file by searching for its box header
/// (a test helper, not an MP4 parser).
enum AVCCBox {
    static func find(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let tag: [UInt8] = Array("avcC".utf8)
        var i = 4
        while i + 4 <= bytes.count {
            if bytes[i] == tag[0] && bytes[i + 1] == tag[1] && bytes[i + 2] == tag[2] && bytes[i + 3] == tag[3] {
                let size = Int(bytes[i - 4]) << 24 | Int(bytes[i - 3]) << 16 | Int(bytes[i - 2]) << 8 | Int(bytes[i - 1])
                if size >= 8 && i - 4 + size <= bytes.count { return bytes[(i + 4)..<(i - 4 + size)] }
            }
            i += 1
        }
        return nil
    }
}

/// Fast byte comparison for large test data (a debug build compares slices element by element).
func sameBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in
        pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0
    } }
}

/// True when both lists hold the same NAL units, byte for byte, in order.
func sameNALs(_ a: [NALUnit], _ b: [NALUnit]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { sameBytes($0.bytes, $1.bytes) }
}
