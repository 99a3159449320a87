import Foundation
import H264
import TestSupport

extension Corpus {
    /// The NAL units of a corpus stream (leading bytes before the first start code skipped).
    /// - Throws: when the file cannot be read or does not split.
    static func nalUnits(_ relative: String) throws -> [NALUnit] {
        try AnnexB.split(read(relative)[...], leadingData: .skip)
    }

    /// The MP4 files of the corpus that carry an `avcC` box.
    static let mp4FilesWithAVCC: [String] = mp4Files.filter { path in
        path.hasSuffix(".mp4") && (try? read(path)).flatMap(AVCCBox.find(in:)) != nil
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
