import Foundation
import Testing
@testable import H264
import TestSupport

/// `NALUnitTrace` against FFmpeg's `trace_headers` bitstream filter, element by element (bit
/// position, name, value), as the trace-diff tool compares them.
///
/// A representative set of streams runs by default; set `H264_TRACE_ALL=1` to compare every
/// corpus stream.
@Suite(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffmpeg"))
struct TraceConformanceTests {
    typealias Element = FFmpeg.TraceElement

    static let representative = [
        "cros-codecs/64x64-I-P-B-P-high.h264",      // High, VUI, AUD, SEI, B frames
        "cros-codecs/test-25fps.h264",              // SEI buffering period / pic timing
        "openh264/test_scalinglist_jm.264",         // scaling lists, 3 PPS
        "openh264/SVA_FM1_E.264",                   // FMO
        "openh264/LS_SVA_D.264",                    // POC type 1
        "openh264/MR1_MW_A.264",                    // ref list modification, MMCO
        "openh264/sps_subsetsps_bothVUI.264",       // subset SPS, type 20
        "openh264/CVFC1_Sony_C.jsv",                // cropping
        "hibernia/CVWP1_TOSHIBA_E.264",             // weighted prediction
        "hibernia/CAWP5_TOSHIBA_E.264",             // AUD, end of stream
        "fate-frext/HCAMFF1_HHI.264",               // MBAFF
        "fate-frext/HCAFF1_HHI.264",                // PAFF
        "fate-frext/HPCVMOLQ_BRCM_B.264",           // 4:0:0
        "fate-frext/FRExt1_Panasonic.avc",          // 8x8 transform
        "fate-frext/PPH10I1_Panasonic_A.264",       // High 10 Intra
    ]

    static var streams: [String] {
        let all = ProcessInfo.processInfo.environment["H264_TRACE_ALL"] == "1" ? Corpus.annexBStreams : representative
        return all.filter { !notTracedByFFmpeg.contains($0) }
    }

    static func type(_ nal: [Element]) -> Int64? { nal.first { $0.name == "nal_unit_type" }?.value }

    /// Streams FFmpeg makes no packet of (subset SPS and SVC slices without a base-layer
    /// picture: "missing picture in access unit"), so `trace_headers` never runs.
    static let notTracedByFFmpeg: Set<String> = ["openh264/sps_subsetsps_bothVUI.264"]

    /// FFmpeg runs on the streams it does not trace and refuses them for that reason (when it
    /// starts tracing one, this fails: compare it in ``matchesFFmpeg(stream:)``); every NAL
    /// unit of them traces here without an error, the subset SPS past its header.
    @Test(arguments: notTracedByFFmpeg.sorted())
    func streamsFFmpegDoesNotTraceAreTracedHere(stream: String) throws {
        let r = try FFmpeg.ffmpeg(["-nostats", "-v", "trace", "-f", "h264", "-i", Corpus.path(stream), "-c", "copy",
                                   "-bsf:v", "trace_headers", "-f", "null", "-"])
        #expect(!r.succeeded && r.stderr.contains("missing picture in access unit"),
                "FFmpeg now traces \(stream) (exit \(r.status)): compare it in matchesFFmpeg")
        var store = ParameterSetStore()
        let units = try Corpus.nalUnits(stream)
        NALUnitTrace.preload(&store, from: units)
        let traces = units.map { NALUnitTrace.trace($0, store: &store) }
        #expect(units.map(\.type.rawValue).contains(15) && units.map(\.type.rawValue).contains(20))
        #expect(traces.allSatisfy { $0.error == nil }, "\(traces.compactMap(\.error))")
        let subset = try #require(zip(units, traces).first { $0.0.type.rawValue == 15 }?.1)
        #expect(subset.elements.contains { $0.name == "profile_idc" } && subset.elements.count > 10)
    }

    @Test(arguments: streams)
    func matchesFFmpeg(stream: String) throws {
        let reference = try FFmpeg.traceHeaders(Corpus.path(stream))
        #expect(!reference.isEmpty, "FFmpeg traced no NAL unit of \(stream)")
        let types = Set(reference.compactMap(Self.type))
        var store = ParameterSetStore()
        let units = try Corpus.nalUnits(stream)
        NALUnitTrace.preload(&store, from: units)
        let ours: [[Element]] = units.map { nal in
            NALUnitTrace.trace(nal, store: &store).elements.flatMap(\.expanded).map { Element(position: $0.bitPosition, name: $0.name, value: $0.value) }
        }.filter { Self.type($0).map(types.contains) ?? false }
        #expect(ours.count == reference.count, "NAL unit count in \(stream)")
        for (i, (r, o)) in zip(reference, ours).enumerated() {
            let a = r, b = o
            if a != b {
                let j = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                Issue.record("\(stream) NAL #\(i) element #\(j): ffmpeg \(j < a.count ? "\(a[j])" : "-") ours \(j < b.count ? "\(b[j])" : "-")")
                break  // the first difference says it; the later ones follow from it
            }
        }
    }
}
