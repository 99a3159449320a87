import Foundation
import Testing
import TestSupport
@testable import H264

/// Framing checked against FFmpeg on the shared corpus (skipped without the corpus or ffmpeg).
@Suite struct FFmpegFramingTests {
    static let enabled = Corpus.isPresent && FFmpeg.isPresent

    /// `nal_ref_idc` and `nal_unit_type` of every NAL unit of every packet (extradata
    /// excluded), from the syntax element lines of FFmpeg's `trace_headers` (its one-line NAL
    /// summaries skip repeats of the same type, so they cannot be counted).
    static func ffmpegNALHeaders(_ path: String) throws -> [[Int]] {
        try FFmpeg.traceHeaders(path, options: ["-map", "0:v:0", "-copyinkf"]).map { unit in
            let value = { (name: String) in unit.first { $0.name == name }.map { Int($0.value) } ?? -1 }
            return [value("nal_unit_type"), value("nal_ref_idc")]
        }
    }

    /// The corpus stream FFmpeg does not remux to MP4 (subset SPS and SVC slices: no avcC).
    static let notRemuxed: Set<String> = ["openh264/sps_subsetsps_bothVUI.264"]

    /// The corpus MP4 files with an avcC box but no sample FFmpeg copies out (init segments,
    /// headers only, and broken sample tables).
    static let withoutSamples: Set<String> = [
        "mp4ff/mp4__init.mp4", "mp4ff/mp4__init_prog.mp4", "mp4ff/mp4__init_with_colr.mp4",
        "mp4parse-rust/bipbop_480wp_1001kbps-cenc-video-key1-init.mp4", "mp4parse-rust/bipbop_cbcs_video_init.mp4",
        "mp4parse-rust/bipbop_nonfragment_header.mp4", "mp4parse-rust/invalid_userdata.mp4",
        "mp4parse-rust/test_case_1185230.mp4", "mp4parse-rust/zero_empty_stsc.mp4", "mp4parse-rust/chunk_out_of_range.mp4",
    ]

    static func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("swift-h264-framing-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_")).path
    }

    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: Corpus.annexBStreams)
    func splitFindsFFmpegsNALUnits(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let ours: [[Int]]
        do {
            ours = try AnnexB.split(bytes, leadingData: .skip).map { [Int($0.type.rawValue), Int($0.nalRefIdc)] }
        } catch {
            Issue.record("split failed: \(error)")
            return
        }
        if TraceConformanceTests.notTracedByFFmpeg.contains(path) {
            let traced = try? Self.ffmpegNALHeaders(Corpus.path(path))
            #expect(traced?.isEmpty ?? true, "FFmpeg now traces \(path): compare it")
            return
        }
        let theirs = try Self.ffmpegNALHeaders(Corpus.path(path))
        #expect(!theirs.isEmpty)
        #expect(ours.count == theirs.count)
        if let i = (0..<min(ours.count, theirs.count)).first(where: { ours[$0] != theirs[$0] }) {
            Issue.record("NAL unit \(i): ours \(ours[i]), FFmpeg \(theirs[i])")
        }
    }

    /// The avcC built from the parameter sets of the first access unit equals the one FFmpeg
    /// writes when remuxing to MP4, except for FFmpeg 5.1's trailing zero byte at the end of a
    /// parameter set followed by a 4-byte start code (a NAL unit never ends in 00, 7.4.1).
    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: Corpus.annexBStreams)
    func avcCMatchesFFmpeg(_ path: String) throws {
        let bytes = try Corpus.read(path)
        // The first access unit's bytes: up to the end of the first slice.
        var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
        var end = bytes.count
        var sawSPS = false
        while let unit = try splitter.next() {
            if unit.type == .sps { sawSPS = true }
            if unit.type.isVCL && sawSPS { end = unit.bytes.endIndex; break }
        }
        try #require(sawSPS)
        let ours = try FormatConversion.annexBToAVCC(bytes[..<end], leadingData: .skip).configuration

        let mp4 = Self.temporaryPath(path + ".mp4")
        defer { try? FileManager.default.removeItem(atPath: mp4) }
        let remux = try FFmpeg.ffmpeg(["-v", "error", "-y", "-f", "h264", "-i", Corpus.path(path),
                                        "-map", "0:v:0", "-c", "copy", "-frames:v", "1", mp4])
        let found = AVCCBox.find(in: Support.readFile(mp4))
        if Self.notRemuxed.contains(path) {
            #expect(found == nil, "FFmpeg now remuxes \(path): compare it")
            return
        }
        let box = try #require(found, "no avcC from FFmpeg: \(remux.stderr)")
        let theirBytes = Array(box)
        if try ours.serialized() == theirBytes { return }
        // Normalise FFmpeg 5.1's trailing zero bytes, then compare again.
        var theirs = try AVCDecoderConfigurationRecord(parsing: theirBytes)
        let trim: (NALUnit) -> NALUnit = { u in
            var b = u.bytes
            while b.count > 1 && b.last == 0 { b = b.dropLast() }
            return (try? NALUnit(b)) ?? u
        }
        let hadTrailingZero = (theirs.sequenceParameterSets + theirs.pictureParameterSets).contains { $0.bytes.last == 0 }
        theirs.sequenceParameterSets = theirs.sequenceParameterSets.map(trim)
        theirs.pictureParameterSets = theirs.pictureParameterSets.map(trim)
        #expect(hadTrailingZero, "differs without FFmpeg's trailing-zero bug")
        #expect(try ours.serialized() == theirs.serialized(), "ours \((try? ours.serialized())?.count ?? 0) bytes, FFmpeg \(theirBytes.count)")
    }

    /// For the MP4 files: our AVCC -> Annex-B gives the NAL units of FFmpeg's
    /// `h264_mp4toannexb`, access unit by access unit, as multisets (the parameter sets sit at
    /// a different place inside an IDR access unit: see FormatConversion.avccToAnnexB).
    @Test(.enabled(if: enabled, "needs ../shared/corpus and ffmpeg"), arguments: Corpus.mp4FilesWithAVCC)
    func avccToAnnexBMatchesFFmpeg(_ path: String) throws {
        let input = Corpus.path(path)
        let box = try #require(AVCCBox.find(in: try Corpus.read(path)))
        let configuration = try AVCDecoderConfigurationRecord(parsing: box)
        let avccPath = Self.temporaryPath(path + ".avcc"), annexBPath = Self.temporaryPath(path + ".264")
        defer {
            try? FileManager.default.removeItem(atPath: avccPath)
            try? FileManager.default.removeItem(atPath: annexBPath)
        }
        try FFmpeg.ffmpeg(["-v", "error", "-y", "-i", input, "-map", "0:v:0", "-c", "copy", "-f", "data", avccPath])
        let log = try FFmpeg.ffmpeg(["-v", "error", "-y", "-i", input, "-map", "0:v:0", "-c:v", "copy",
                                     "-bsf:v", "h264_mp4toannexb", "-f", "h264", annexBPath]).stderr
        let avcc = Support.readFile(avccPath), reference = Support.readFile(annexBPath)
        if Self.withoutSamples.contains(path) {
            #expect(avcc.isEmpty, "FFmpeg now copies samples out of \(path): compare them")
            return
        }
        try #require(!avcc.isEmpty && !reference.isEmpty, "FFmpeg copied no samples: \(log)")
        let converted: [UInt8]
        do {
            converted = try FormatConversion.avccToAnnexB(avcc[...], configuration: configuration)
        } catch {
            // Damaged samples: a typed error from us, and FFmpeg complains too.
            #expect([H264Error.Code.lengthPastEnd, .truncated, .emptyNALUnit].contains(error.code))
            #expect(log.contains("Invalid NAL unit size"), "\(error)")
            return
        }
        let ours = try AnnexB.split(converted)
        let theirs = try AnnexB.split(reference)
        let a = Self.accessUnits(ours), b = Self.accessUnits(theirs)
        #expect(a.count == b.count)
        if let i = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
            Issue.record("access unit \(i) differs: ours \(a[i].count) NAL units, FFmpeg \(b[i].count)")
        }
    }

    /// NAL units grouped into access units, each as a sorted list of byte arrays.
    static func accessUnits(_ units: [NALUnit]) -> [[[UInt8]]] {
        groupedAccessUnits(units).map { $0.map { Array($0.bytes) }.sorted { $0.lexicographicallyPrecedes($1) } }
    }
}
