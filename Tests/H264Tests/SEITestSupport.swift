import Foundation
import Testing
import TestSupport
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

    static func context(_ key: String) -> TestSEIContext {
        contexts[key] ?? TestSEIContext(sps: [:], active: nil)
    }

    /// The SEI NAL units of a corpus stream.
    static func seiUnits(ofCorpus relative: String) throws -> [NALUnit] {
        try Corpus.nalUnits(relative).filter { $0.type == .sei }
    }

    /// The element lines FFmpeg's trace_headers prints for each SEI NAL unit of a corpus
    /// stream, as `<position> <name> = <value>`.
    static func ffmpegSEITraces(ofCorpus relative: String, frames: Int? = nil) throws -> [[String]] {
        try FFmpeg.traceHeaders(Corpus.path(relative), options: frames.map { ["-frames:v", "\($0)"] } ?? [])
            .filter { unit in unit.contains { $0.name == "nal_unit_type" && $0.value == 6 } }
            .map { unit in unit.map { "\($0.position) \($0.name) = \($0.value)" } }
    }

    /// Parses (framing only) and re-writes every SEI NAL unit of every stream, recording an
    /// issue for each that does not come back byte-identical.
    /// - Returns: the number of SEI NAL units checked.
    static func framingRoundTrip(_ streams: [(name: String, bytes: [UInt8])]) throws -> Int {
        var count = 0
        for (name, bytes) in streams {
            for u in try AnnexB.split(bytes[...], leadingData: .skip) where u.type == .sei {
                let sei = try SEI.parse(u, context: EmptySyntaxContext(), options: .framingOnly)
                #expect(try sei.write() == Array(u.bytes), "\(name)")
                count += 1
            }
        }
        return count
    }
}
