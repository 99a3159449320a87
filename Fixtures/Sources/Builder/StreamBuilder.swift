import H264

/// Builds H.264 streams no encoder makes, for tests: parameter sets from a few choices, then
/// access units with chosen slice types, `nal_ref_idc`, `frame_num`, picture order counts, IDR
/// or recovery-point SEI, access unit delimiters, several slices, field pictures.
///
/// Every structure is written by the library's own syntax descriptions through
/// `SyntaxWriter`: `SequenceParameterSet`, `PictureParameterSet`, `SliceHeader`,
/// `SEINALUnit`, `AccessUnitDelimiter`. Slices carry minimal picture data: after the slice
/// header, a CAVLC P, B or SP slice holds one `mb_skip_run` covering all its macroblocks, a
/// CAVLC I or SI slice `I_PCM` macroblocks of flat grey (see ``pcmIntraSlices``), so CAVLC
/// streams decode; a CABAC slice holds a single filler bit and does not decode. Every NAL unit
/// parses to the end of its header exactly as FFmpeg's `trace_headers` reads it.
///
/// ```swift
/// var options = StreamBuilder.SequenceOptions(width: 98, height: 50, profileIDC: 100)
/// options.pocType = 1
/// var builder = try StreamBuilder(options)
/// try builder.append(.init(.i, idr: true, sliceCount: 2))
/// try builder.append(.init(.p, poc: 6))
/// try builder.append(.init(.b, poc: 2))
/// let annexB = builder.annexB()
/// let (avcc, record) = try builder.avcc(lengthSize: .two)
/// ```
///
/// A stream of any length goes to a sink instead, one access unit at a time, and the builder
/// keeps none of them (``append(_:to:)``):
///
/// ```swift
/// for picture in try StreamBuilder.pictures(script: "I! P P P") {
///     try builder.append(picture) { accessUnit in try file.write(AnnexB.write(accessUnit)) }
/// }
/// ```
public struct StreamBuilder: Sendable {
    /// The SPS every picture uses (written at the start, and at every IDR with
    /// ``parameterSetsAtEveryIDR``).
    public let sps: SequenceParameterSet
    /// The PPS every picture uses.
    public let pps: PictureParameterSet
    /// Writes an access unit delimiter (`primary_pic_type` 7) first in every access unit.
    public var accessUnitDelimiters = false
    /// Repeats the SPS and PPS in every IDR access unit, not only the first.
    public var parameterSetsAtEveryIDR = false
    /// Codes the macroblocks of CAVLC I and SI slices as `I_PCM` (flat samples, 384 bytes per
    /// 4:2:0 8-bit macroblock), so that CAVLC streams decode; when false they hold one filler
    /// bit, like CABAC I slices always do.
    public var pcmIntraSlices = true
    /// The NAL units of every access unit appended with ``append(_:)``, in decoding order.
    public private(set) var accessUnits: [[NALUnit]] = []
    /// What was written for each picture appended with ``append(_:)``, in decoding order.
    public private(set) var pictures: [BuiltPicture] = []
    /// The bytes of the NAL units in ``accessUnits``: what the builder holds of the stream
    /// (0 when every picture went to a sink through ``append(_:to:)``).
    public private(set) var heldByteCount = 0
    /// The access units built so far, kept or handed to a sink.
    public private(set) var accessUnitCount = 0

    private let spsUnit: NALUnit
    private let ppsUnit: NALUnit
    private var store = ParameterSetStore()
    private var numbering = Numbering()

    /// The state automatic numbering carries from picture to picture; ``append(_:)`` works on a
    /// copy and keeps it only when the picture was written, so a failed append changes nothing.
    private struct Numbering: Sendable {
        var counter = PictureOrderCountDecoder()
        var nextFrameNum: UInt32 = 0
        var idrCount: UInt32 = 0
        /// Pictures (frames, or field pairs) since the last IDR, for automatic POC.
        var outputIndex: Int64 = 0
        /// The first field of a pair, waiting for its second field.
        var firstField: (bottom: Bool, frameNum: UInt32, idrPicID: UInt32?, isIDR: Bool)?
    }

    /// The cap on slices per picture.
    public static let maxSlicesPerPicture = 256

    /// Creates a builder for the parameter sets `options` describes.
    /// - Throws: see ``SequenceOptions/makeParameterSets()``.
    public init(_ options: SequenceOptions) throws(H264Error) {
        let (sps, pps) = try options.makeParameterSets()
        try self.init(sps: sps, pps: pps)
    }

    /// Creates a builder over parameter sets made by hand.
    /// - Throws: the writers' errors for values that do not fit their fields.
    public init(sps: SequenceParameterSet, pps: PictureParameterSet) throws(H264Error) {
        guard pps.spsID == sps.id else {
            throw H264Error.invalid(.invalidArgument, "PPS \(pps.id) names SPS \(pps.spsID), not \(sps.id)")
        }
        self.sps = sps
        self.pps = pps
        var copySPS = sps, copyPPS = pps
        spsUnit = try Self.nalUnit(nalRefIdc: 3, type: 7) { (w: inout SyntaxWriter) throws(H264Error) in try copySPS.code(&w, context: .empty) }
        ppsUnit = try Self.nalUnit(nalRefIdc: 3, type: 8) { (w: inout SyntaxWriter) throws(H264Error) in
            try copyPPS.code(&w, context: ParameterSetStore(sps: sps))
        }
        store.insert(sps)
        store.insert(pps)
    }

    /// Appends one picture as one access unit, kept in ``accessUnits`` (and what was written
    /// in ``pictures``).
    /// - Throws: `H264Error.Code.invalidArgument` for a field picture without
    ///   `frame_mbs_only_flag` 0, a P/B/SP IDR picture, a slice count outside
    ///   1...``maxSlicesPerPicture`` or above the macroblock count, an explicit POC that POC
    ///   type 2 cannot express; the writers' errors for values that do not fit their fields.
    public mutating func append(_ picture: Picture) throws(H264Error) {
        let (au, built) = try build(picture)
        for unit in au { heldByteCount &+= unit.bytes.count }  // each unit is in memory: no overflow
        accessUnits.append(au)
        pictures.append(built)
    }

    /// Builds one picture as one access unit and hands it to `sink` (SPS and PPS in the first
    /// access unit built, as ``append(_:)`` puts them): the builder keeps nothing of it, so a
    /// stream of any length is built in the memory of one access unit.
    /// - Parameters:
    ///   - picture: the picture to build.
    ///   - sink: takes the access unit's NAL units, in order.
    /// - Throws: the errors of ``append(_:)``, and what `sink` throws; a picture that fails to
    ///   build reaches no sink and changes nothing.
    public mutating func append(_ picture: Picture, to sink: (_ accessUnit: [NALUnit]) throws -> Void) throws {
        let (au, _) = try build(picture)
        try sink(au)
    }

    /// Builds one picture's access unit and advances the numbering.
    private mutating func build(_ picture: Picture) throws(H264Error) -> (accessUnit: [NALUnit], picture: BuiltPicture) {
        let field = picture.structure != .frame
        let bottom = picture.structure == .bottomField
        if field && sps.frameMbsOnlyFlag {
            throw H264Error.invalid(.invalidArgument, "field pictures need frame_mbs_only_flag 0")
        }
        if picture.idr && !(picture.kind == .i || picture.kind == .si) {
            throw H264Error.invalid(.invalidArgument, "an IDR picture holds I or SI slices only")
        }
        let nalRefIdc = picture.nalRefIdc ?? (picture.idr ? 3 : picture.kind == .b ? 0 : 2)
        guard nalRefIdc <= 3, !(picture.idr && nalRefIdc == 0) else {
            throw H264Error.invalid(.invalidArgument, "nal_ref_idc \(nalRefIdc) for this picture")
        }
        // Units per slice address: macroblocks, or macroblock pairs in an MBAFF frame.
        let mbaffFrame = sps.mbAdaptiveFrameFieldFlag && !field
        let mbs = sps.picWidthInMbs &* (field ? sps.frameHeightInMbs / 2 : sps.frameHeightInMbs)  // <= 4096 * 8192
        let units = mbaffFrame ? mbs / 2 : mbs
        guard picture.sliceCount >= 1, picture.sliceCount <= Self.maxSlicesPerPicture, picture.sliceCount <= units else {
            throw H264Error.invalid(.invalidArgument, "\(picture.sliceCount) slices for \(units) slice addresses")
        }

        var state = numbering
        // A second field: the opposite parity of a pending first field.
        var second: (bottom: Bool, frameNum: UInt32, idrPicID: UInt32?, isIDR: Bool)?
        if let pending = state.firstField {
            state.firstField = nil
            if field && pending.bottom != bottom && !(picture.idr && !pending.isIDR) { second = pending } else { state.outputIndex &+= 1 }
        }
        if picture.idr && !(second?.isIDR ?? false) {
            state.nextFrameNum = 0
            state.outputIndex = 0
        }
        let maxFrameNum = UInt32(sps.maxFrameNum)  // <= 2^16
        let frameNum = (picture.frameNum ?? second?.frameNum ?? state.nextFrameNum) % maxFrameNum
        if nalRefIdc != 0 && second == nil { state.nextFrameNum = (frameNum &+ 1) % maxFrameNum }
        var idrPicID: UInt32 = 0
        if picture.idr {
            if let id = picture.idrPicID ?? second?.idrPicID { idrPicID = id } else {
                idrPicID = state.idrCount % 65536
                state.idrCount &+= 1
            }
        }

        var header = SliceHeader()
        header.sliceType = SliceType(picture.kind, allSlicesSame: picture.sliceTypeAllSame)
        header.ppsID = pps.id
        header.frameNum = frameNum
        header.fieldPicFlag = field
        header.bottomFieldFlag = bottom
        header.idrPicID = idrPicID
        header.sliceQpDelta = picture.sliceQpDelta
        header.directSpatialMvPredFlag = true
        try setPOC(&header, picture: picture, isReference: nalRefIdc != 0, state: state)

        let poc = state.counter.next(Self.pocInputs(header, idr: picture.idr, isReference: nalRefIdc != 0), sps.pocParameters)

        var au: [NALUnit] = []
        if accessUnitDelimiters {
            var aud = AccessUnitDelimiter(primaryPicType: .any)
            au.append(try Self.nalUnit(nalRefIdc: 0, type: 9) { (w: inout SyntaxWriter) throws(H264Error) in try aud.code(&w, context: .empty) })
        }
        if accessUnitCount == 0 || (picture.idr && parameterSetsAtEveryIDR && second == nil) {
            au.append(spsUnit)
            au.append(ppsUnit)
        }
        if let recovery = picture.recoveryPoint {
            au.append(try SEINALUnit(messages: [SEIMessage(.recoveryPoint(recovery))]).nalUnit())
        }
        let type: UInt8 = picture.idr ? 5 : 1
        var headers: [SliceHeader] = []
        let pcm = pcmIntraSlices
        for s in 0..<picture.sliceCount {
            // Both < 256 * 2^25: no overflow.
            let first = s &* units / picture.sliceCount, next = (s &+ 1) &* units / picture.sliceCount
            header.firstMbInSlice = UInt32(first)
            var h = header
            let scale = mbaffFrame ? 2 : 1
            au.append(try Self.nalUnit(nalRefIdc: nalRefIdc, type: type) { [self] (w: inout SyntaxWriter) throws(H264Error) in
                h.nalUnitHeader = NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: NALUnitType(rawValue: type))
                try h.setInferredValues(context: self.store)
                try h.code(&w, context: self.store)
                try Self.codeSliceData(&w, kind: picture.kind, sps: sps, cabac: pps.entropyCodingModeFlag, pcm: pcm,
                                       macroblocks: (next &- first) &* scale, firstAddress: first &* scale, mbaff: mbaffFrame)
                try w.trailingBits()  // rbsp_slice_trailing_bits()
            })
            headers.append(h)
        }

        if field && second == nil {
            state.firstField = (bottom, frameNum, picture.idr ? idrPicID : nil, picture.idr)
        } else {
            state.outputIndex &+= 1
        }
        numbering = state
        accessUnitCount &+= 1
        return (au, BuiltPicture(nalUnitType: type, nalRefIdc: nalRefIdc, sliceHeaders: headers, poc: poc))
    }

    /// Sets `pic_order_cnt_lsb` / `delta_pic_order_cnt[0]` so that a decoder derives the POC
    /// the picture asks for.
    private func setPOC(_ header: inout SliceHeader, picture: Picture, isReference: Bool, state: Numbering) throws(H264Error) {
        let wanted = picture.poc ?? (2 &* state.outputIndex &+ (picture.structure == .bottomField ? 1 : 0))
        switch sps.picOrderCntType {
        case 0:
            let maxLsb = Int64(sps.maxPicOrderCntLsb)
            header.picOrderCntLsb = UInt32(((wanted % maxLsb) + maxLsb) % maxLsb)  // in 0..<2^16
        case 1:
            var probe = state.counter
            var inputs = Self.pocInputs(header, idr: picture.idr, isReference: isReference)
            inputs.deltaPicOrderCnt0 = 0
            let expected = probe.next(inputs, sps.pocParameters)
            let base = picture.structure == .bottomField ? expected.bottom : expected.top
            guard let delta = Int32(exactly: wanted &- base), delta != Int32.min else {
                throw H264Error.invalid(.invalidArgument, "POC \(wanted) is too far from the expected \(base)")
            }
            header.deltaPicOrderCnt0 = delta
        default:
            guard picture.poc != nil else { return }
            var probe = state.counter
            let derived = probe.next(Self.pocInputs(header, idr: picture.idr, isReference: isReference), sps.pocParameters)
            guard derived.value == wanted else {
                throw H264Error.invalid(.invalidArgument, "POC type 2 derives \(derived.value) from frame_num, not \(wanted)")
            }
        }
    }

    private static func pocInputs(_ h: SliceHeader, idr: Bool, isReference: Bool) -> POCInputs {
        POCInputs(isIDR: idr, isReference: isReference, frameNum: Int64(h.frameNum), fieldPic: h.fieldPicFlag,
                  bottomField: h.bottomFieldFlag, picOrderCntLsb: Int64(h.picOrderCntLsb),
                  deltaPicOrderCntBottom: Int64(h.deltaPicOrderCntBottom),
                  deltaPicOrderCnt0: Int64(h.deltaPicOrderCnt0), deltaPicOrderCnt1: Int64(h.deltaPicOrderCnt1))
    }

    /// A NAL unit: its header and the RBSP `body` writes, with emulation prevention.
    static func nalUnit(nalRefIdc: UInt8, type: UInt8,
                        _ body: (inout SyntaxWriter) throws(H264Error) -> Void) throws(H264Error) -> NALUnit {
        var w = SyntaxWriter()
        var header = NALUnitHeader(nalRefIdc: nalRefIdc, nalUnitType: NALUnitType(rawValue: type))
        try header.code(&w, context: .empty)
        try body(&w)
        let rbsp = w.writer.bytes
        var out = [rbsp[0]]
        out.reserveCapacity(rbsp.count &+ rbsp.count / 64 &+ 2)
        EmulationPrevention.appendEBSP(of: rbsp[1...], to: &out)
        return try NALUnit(out)
    }

    // MARK: - Output

    /// The stream in Annex-B framing (4-byte start codes), SPS and PPS in the first access unit.
    /// - Complexity: O(n) in the stream size.
    public func annexB() -> [UInt8] {
        AnnexB.write(accessUnits.joined())
    }

    /// The stream as length-prefixed samples with its `AVCDecoderConfigurationRecord`: the SPS
    /// and PPS go into the record only, every access unit is one sample.
    /// - Returns: the samples back to back, each sample's size, and the record.
    /// - Throws: `H264Error.Code.nalUnitTooLarge` when a NAL unit does not fit `lengthSize`.
    public func avcc(lengthSize: AVCC.LengthSize = .four) throws(H264Error)
        -> (bytes: [UInt8], sampleSizes: [Int], configuration: AVCDecoderConfigurationRecord) {
        let record = try configuration(lengthSize: lengthSize)
        var out: [UInt8] = []
        var sizes: [Int] = []
        for au in accessUnits {
            let start = out.count
            try Self.appendAVCCSample(au, lengthSize: lengthSize, to: &out)
            sizes.append(out.count &- start)
        }
        return (out, sizes, record)
    }

    /// The `AVCDecoderConfigurationRecord` of the builder's SPS and PPS, for samples written
    /// with ``appendAVCCSample(_:lengthSize:to:)``.
    public func configuration(lengthSize: AVCC.LengthSize = .four) throws(H264Error) -> AVCDecoderConfigurationRecord {
        try AVCDecoderConfigurationRecord(parameterSets: [spsUnit, ppsUnit], lengthSize: lengthSize)
    }

    /// Appends one access unit as a length-prefixed sample: its NAL units but the SPS and PPS,
    /// which are in the record (``configuration(lengthSize:)``).
    /// - Throws: `H264Error.Code.nalUnitTooLarge` when a NAL unit does not fit `lengthSize`.
    public static func appendAVCCSample(_ accessUnit: [NALUnit], lengthSize: AVCC.LengthSize,
                                        to out: inout [UInt8]) throws(H264Error) {
        for unit in accessUnit where unit.type != .sps && unit.type != .pps {
            try AVCC.append(unit, lengthSize: lengthSize, to: &out)
        }
    }
}
