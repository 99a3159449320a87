import Foundation

/// A small H.264 stream owned by the swift-h264 project, loadable by a typed name.
///
/// Every case is one file of `Fixtures/Streams`, made by `Fixtures/make-fixtures.sh`; its known
/// facts (profile, level, size, frame and keyframe counts, NAL unit type counts, POC type,
/// access-unit sizes...) are in ``facts``, read from `Fixtures/manifest.json`.
///
/// ```swift
/// import H264Fixtures
///
/// for fixture in Fixture.all where fixture.facts.kind == .annexB {
///     let bytes = fixture.bytes()
///     // split `bytes` and compare with fixture.facts.nalTypeCounts ...
/// }
/// ```
///
/// The raw value is the file name.
public enum Fixture: String, CaseIterable, Sendable {
    /// Access unit delimiters before every access unit (Main, CABAC, B-frames).
    case aud = "aud.264"
    /// AVCC with 1-byte NAL unit lengths (a 32x32 Main stream); see ``configurationRecord()``.
    case avccLength1 = "avcc-len1.avcc"
    /// AVCC with 2-byte NAL unit lengths of ``mainCABACBFrames``.
    case avccLength2 = "avcc-len2.avcc"
    /// AVCC with 4-byte NAL unit lengths of ``mainCABACBFrames``.
    case avccLength4 = "avcc-len4.avcc"
    /// Constrained Baseline, CAVLC, I and P pictures, two IDRs, POC type 2.
    case baselineCAVLC = "baseline-cavlc.264"
    /// ``mainCABACBFrames`` with two `cabac_zero_word`s after every slice: slice NAL units end in
    /// `00 00 03 00 00 03`.
    case cabacZeroWords = "cabac-zero-words.264"
    /// Cropping in 1-sample units (4:4:4) on three sides: 64x48 coded, 61x45 displayed.
    case crop444_61x45 = "crop-444-61x45.264"
    /// Cropping of an MBAFF stream (4-row units): 64x64 coded, 64x40 displayed.
    case cropMBAFF64x40 = "crop-mbaff-64x40.264"
    /// Cropping: 112x64 coded, 98x50 displayed.
    case crop98x50 = "crop-98x50.264"
    /// ``baselineCAVLC`` with a crafted user-data SEI whose payload needs every kind of
    /// emulation prevention (`00 00 03 00`, `00 00 03 01`, `00 00 03 02`, `00 00 03 03`).
    case emulationPrevention = "emulation-prevention.264"
    /// High, CABAC, B-pyramid (reference B pictures).
    case highBPyramid = "high-bpyramid.264"
    /// High, CAVLC with the 8x8 transform.
    case highCAVLC = "high-cavlc.264"
    /// High 10, 10-bit 4:2:0.
    case high10 = "high10.264"
    /// High 4:2:2, 10-bit.
    case high422_10 = "high422-10.264"
    /// High 4:2:2, 8-bit.
    case high422 = "high422.264"
    /// High 4:4:4 Predictive, lossless (transform bypass).
    case high444Lossless = "high444-lossless.264"
    /// High 4:4:4 Predictive, 8-bit.
    case high444 = "high444.264"
    /// Periodic intra refresh: one IDR, then recovery-point SEIs.
    case intraRefresh = "intra-refresh.264"
    /// ``baselineCAVLC`` preceded by 16 bytes of garbage with no start code.
    case leadingGarbage = "leading-garbage.264"
    /// Main, CABAC, non-reference B-frames.
    case mainCABACBFrames = "main-cabac-bframes.264"
    /// Interlaced MBAFF frames, Main, CAVLC, bottom field first.
    case mbaffBFFCAVLC = "mbaff-bff-cavlc.264"
    /// Interlaced MBAFF frames, High, CABAC, top field first.
    case mbaffTFF = "mbaff-tff.264"
    /// Broken: ``baselineCAVLC`` with every PPS removed.
    case missingPPS = "missing-pps.264"
    /// High, 4:0:0 monochrome.
    case monochrome = "monochrome.264"
    /// Field pictures (PAFF): every frame coded as a top IDR field and a bottom I field.
    /// Rewritten from an encode of separated fields; valid syntax, scrambled pictures.
    case paffFields = "paff-fields.264"
    /// Field pictures (PAFF) with P and non-reference B field pairs reordered by POC, made by
    /// the stream builder (`h264 build-stream`): minimal slice data (P/B macroblocks all
    /// skipped, I macroblocks I_PCM grey), so it decodes to flat pictures.
    case paffPB = "paff-pb.264"
    /// POC type 1 (`delta_pic_order_cnt[0]` per picture) with reordered non-reference B
    /// pictures and a recovery-point I picture; made by the stream builder (`h264 build-stream`).
    case pocType1 = "poc-type1.264"
    /// Open GOP: non-IDR I pictures with recovery-point SEIs, B pictures referencing across them.
    case openGOP = "open-gop.264"
    /// Two encodes back to back: 64x48, then 96x64 with a new SPS.
    case resolutionChange = "resolution-change.264"
    /// NAL HRD: buffering-period and picture-timing SEIs.
    case seiHRD = "sei-hrd.264"
    /// Four slices per picture.
    case slices4 = "slices-4.264"
    /// Extended profile (88) SP and SI slices; made by the stream builder (`h264 build-stream`).
    case spSI = "sp-si.264"
    /// ``baselineCAVLC`` with three zero bytes after every NAL unit (`trailing_zero_8bits`).
    case trailingZeros = "trailing-zeros.264"
    /// Broken: ``baselineCAVLC`` cut in the middle of its second IDR slice.
    case truncated = "truncated.264"
    /// A full VUI: sample aspect ratio, video signal type, colour description, chroma location,
    /// timing.
    case vuiFull = "vui-full.264"

    /// Every fixture, in file-name order.
    public static var all: [Fixture] { allCases }

    /// The file name in `Fixtures/Streams`.
    public var fileName: String { rawValue }

    /// The location of the stream in the resource bundle.
    public var url: URL { Fixture.streamsDirectory.appendingPathComponent(rawValue) }

    /// The stream's bytes.
    ///
    /// The streams ship inside this module's resource bundle; a missing file means a broken
    /// installation and stops the program.
    /// - Complexity: O(n) in the file size (a few kilobytes).
    public func bytes() -> [UInt8] {
        Fixture.load(url)
    }

    /// For an AVCC fixture, its `AVCDecoderConfigurationRecord` (the body of an `avcC` box: the
    /// SPS and PPS and the NAL unit length size); nil for Annex B fixtures.
    public func configurationRecord() -> [UInt8]? {
        guard let file = facts.configurationFile else { return nil }
        return Fixture.load(Fixture.streamsDirectory.appendingPathComponent(file))
    }

    /// The stream's known facts, from the manifest.
    public var facts: FixtureFacts {
        guard let facts = FixtureManifest.shared.facts(for: rawValue) else {
            preconditionFailure("\(rawValue) is not in the fixture manifest")
        }
        return facts
    }

    /// The directory holding every stream (`Streams` in this module's resource bundle).
    public static var streamsDirectory: URL {
        guard let url = Bundle.module.url(forResource: "Streams", withExtension: nil) else {
            preconditionFailure("the H264Fixtures resource bundle has no Streams directory")
        }
        return url
    }

    private static func load(_ url: URL) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            preconditionFailure("cannot read fixture \(url.path)")
        }
        return [UInt8](data)
    }
}
