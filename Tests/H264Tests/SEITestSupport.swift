import Foundation
import Testing
@testable import H264

/// A dictionary-backed SEI context for tests: the SPS facts hard-coded from FFmpeg's trace of
/// each stream's SPS (the real SPS parser is wired in by the integrator).
struct TestSEIContext: SyntaxContext {
    var sps: [Int: SEITimingInfo]
    var active: SEITimingInfo?

    func seiTimingInfo(forSPS id: Int) -> SEITimingInfo? { sps[id] }
    var activeSEITimingInfo: SEITimingInfo? { active }

    static func single(_ t: SEITimingInfo, id: Int = 0) -> TestSEIContext { TestSEIContext(sps: [id: t], active: t) }
}

enum SEITestSupport {
    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }

    static func hrd(_ initial: Int, _ cpb: Int, _ dpb: Int, _ timeOffset: Int) -> HRDFieldLengths {
        HRDFieldLengths(cpbCount: 1, initialCPBRemovalDelayLength: initial, cpbRemovalDelayLength: cpb,
                        dpbOutputDelayLength: dpb, timeOffsetLength: timeOffset)
    }

    /// SPS facts per stream, read off FFmpeg's trace of the SPS.
    static let contexts: [String: TestSEIContext] = [
        // x264, --nal-hrd vbr --pic-struct, progressive.
        "a": .single(SEITimingInfo(nalHRD: hrd(20, 8, 7, 0), vclHRD: nil, picStructPresent: true, frameMBsOnly: true)),
        // x264, --fake-interlaced --pic-struct --nal-hrd vbr.
        "c": .single(SEITimingInfo(nalHRD: hrd(20, 13, 7, 0), vclHRD: nil, picStructPresent: true, frameMBsOnly: false)),
        // x264, --pic-struct without HRD: time_offset is 24 bits.
        "d": .single(SEITimingInfo(nalHRD: nil, vclHRD: nil, picStructPresent: true, frameMBsOnly: true)),
        // cros-codecs/test-25fps.h264: NAL HRD, lengths 24, no pic_struct.
        "test-25fps": .single(SEITimingInfo(nalHRD: hrd(24, 24, 24, 24), vclHRD: nil, picStructPresent: false)),
    ]

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `../shared/corpus` from the package root (or from the folder above it, for a worktree
    /// two levels down).
    static let corpus: String = {
        let candidates = [packageRoot + "/../shared/corpus", packageRoot + "/../../shared/corpus"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/cros-codecs/test-25fps.h264") } ?? candidates[0]
    }()

    static var corpusPresent: Bool { FileManager.default.fileExists(atPath: corpus + "/cros-codecs/test-25fps.h264") }

    static let ffmpegPath: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Corpus streams that carry SEI NAL units, with the context key for their SPS and how
    /// many frames FFmpeg needs to trace to see them (nil: all).
    static let corpusSEIStreams: [(path: String, context: String, frames: Int?)] = [
        ("cros-codecs/test-25fps.h264", "test-25fps", nil),
        ("cros-codecs/64x64-I.h264", "none", nil),
        ("cros-codecs/64x64-I-P.h264", "none", nil),
        ("cros-codecs/64x64-I-P-B-P.h264", "none", nil),
        ("cros-codecs/64x64-I-P-B-P-high.h264", "none", nil),
        ("openh264/VID_1280x720_cabac_temporal_direct.264", "none", 1),
    ]

    /// A quick filter: whether the file holds a start code followed by an SEI NAL unit header.
    static func mayHoldSEI(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return [0x06, 0x26, 0x46, 0x66].contains { (h: UInt8) in data.range(of: Data([0, 0, 1, h])) != nil }
    }

    static func context(_ key: String) -> TestSEIContext {
        contexts[key] ?? TestSEIContext(sps: [:], active: nil)
    }

    static func seiUnits(of path: String) throws -> [NALUnit] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try AnnexB.split([UInt8](data), leadingData: .skip).filter { $0.type == .sei }
    }

    /// The element lines FFmpeg's trace_headers prints for each SEI NAL unit of `path`, as
    /// `<position> <name> = <value>`.
    static func ffmpegSEITraces(of path: String, frames: Int? = nil) throws -> [[String]] {
        guard let ffmpeg = ffmpegPath else { return [] }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-hide_banner", "-v", "trace", "-f", "h264", "-i", path, "-c", "copy",
                       "-bsf:v", "trace_headers"] + (frames.map { ["-frames:v", "\($0)"] } ?? []) + ["-f", "null", "-"]
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var groups: [[String]] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard line.hasPrefix("[trace_headers"), let close = line.firstIndex(of: "]") else { continue }
            let fields = line[line.index(after: close)...].split(separator: " ")
            guard fields.count >= 5, let pos = Int(fields[0]), fields[fields.count - 2] == "=" else { continue }
            let element = "\(pos) \(fields[1]) = \(fields[fields.count - 1])"
            if pos == 0 && fields[1] == "forbidden_zero_bit" { groups.append([]) }
            if !groups.isEmpty { groups[groups.count - 1].append(element) }
        }
        return groups.filter { $0.contains("3 nal_unit_type = 6") }
    }

    /// Parses (framing only) and re-writes every SEI NAL unit of every Annex-B stream under
    /// `root`, recording an issue for each that does not come back byte-identical.
    /// - Returns: the number of SEI NAL units checked.
    static func framingRoundTrip(under root: String) throws -> Int {
        let exts: Set<String> = ["264", "h264", "jsv", "avc", "26l", "jvt"]
        var count = 0
        guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
        for case let rel as String in walker where exts.contains((rel as NSString).pathExtension) {
            let path = root + "/" + rel
            guard mayHoldSEI(path), let units = try? seiUnits(of: path) else { continue }
            for u in units {
                let sei = try SEI.parse(u, context: EmptySyntaxContext(), options: .framingOnly)
                #expect(try sei.write() == Array(u.bytes), "\(rel)")
                count += 1
            }
        }
        return count
    }
}
