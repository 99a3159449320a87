/// Re-writes an Annex-B stream through the syntax writer: every SPS, PPS, AUD, filler and
/// slice header is parsed and written again, slice data is copied unchanged after the new
/// header bits, and ``HeaderEdits`` are applied on the way.
///
/// Without edits the output is byte-identical to the input: framing bytes (start codes,
/// zero bytes) are copied as they were, and a NAL unit whose re-written RBSP equals the
/// original keeps its original bytes (so even unusual emulation prevention survives). A
/// NAL unit that changed is re-escaped.
public enum AnnexBHeaderEditor {
    /// Edits `stream`. NAL units that cannot be parsed are copied unchanged (see
    /// ``edit(_:edits:unparsed:)`` to learn which).
    /// - Returns: the edited stream.
    /// - Throws: ``H264Error/Code/invalidArgument`` for edits that cannot be applied.
    /// - Complexity: O(n) in the stream size.
    public static func edit(_ stream: ArraySlice<UInt8>, edits: HeaderEdits) throws(H264Error) -> [UInt8] {
        var unparsed: [(index: Int, error: H264Error)] = []
        return try edit(stream, edits: edits, unparsed: &unparsed)
    }

    /// Edits `stream`, copying every NAL unit that cannot be parsed (a slice naming a missing
    /// PPS, a malformed header, a NAL unit header with `forbidden_zero_bit` set) unchanged
    /// instead of failing, and listing the first ``AnnexBStreamEditor/maximumReports`` of them
    /// in `unparsed` (the NAL unit's index in the stream, counting every NAL unit, and the
    /// error). Edits never change what a slice header depends on, so a copied slice stays
    /// valid; a copied SPS keeps its old values. For a stream that arrives in chunks (or does
    /// not fit in memory), use ``AnnexBStreamEditor``, which this calls.
    /// - Throws: only for edits that cannot be applied (``H264Error/Code/invalidArgument``).
    public static func edit(_ stream: ArraySlice<UInt8>, edits: HeaderEdits,
                            unparsed: inout [(index: Int, error: H264Error)]) throws(H264Error) -> [UInt8] {
        var editor = AnnexBStreamEditor(edits: edits, maximumNALUnitSize: Int.max)
        var out: [UInt8] = []
        out.reserveCapacity(stream.count &+ stream.count / 16)
        try editor.append(stream, to: &out)
        try editor.finish(to: &out)
        unparsed.append(contentsOf: editor.unparsed)
        return out
    }

    /// Table 7-5: the smallest `primary_pic_type` whose slice types include all of `kinds`
    /// (each `slice_type % 5`).
    static func primaryPicType(_ kinds: [UInt8]) -> UInt8 {
        // Bit per kind: P 0, B 1, I 2, SP 3, SI 4.
        var mask: UInt8 = 0
        for k in kinds where k < 5 { mask |= 1 << k }
        let allowed: [UInt8] = [0b00100, 0b00101, 0b00111, 0b10000, 0b11000, 0b10100, 0b11101, 0b11111]
        for (value, set) in allowed.enumerated() where mask & ~set == 0 { return UInt8(value) }
        return 7
    }

    /// The bytes after what `reader` parsed, up to its end: data after `rbsp_trailing_bits()`,
    /// which an AUD or filler parse tolerates and the editor keeps as it was.
    static func remainder(of rbsp: ArraySlice<UInt8>, after reader: SyntaxReader) -> ArraySlice<UInt8> {
        rbsp.dropFirst(reader.bitPosition >> 3)  // byte aligned after the trailing bits
    }

    static func appendRewritten(_ nal: NALUnit, store: inout ParameterSetStore, edits: HeaderEdits,
                                to out: inout [UInt8]) throws(H264Error) {
        let headerLength = nal.headerLength
        let rbsp = nal.rbsp
        var rewritten: [UInt8]
        switch nal.type.rawValue {
        case 7:
            let sps = try SequenceParameterSet(rbsp: rbsp)
            store.insert(sps)
            var edited = sps
            try edits.apply(to: &edited)
            rewritten = try edited.rbsp()
        case 8:
            let pps = try PictureParameterSet(rbsp: rbsp, sps: store.spsLookup)
            store.insert(pps)
            rewritten = try pps.rbsp(sps: store.spsLookup)
        case 9:
            var aud = AccessUnitDelimiter()
            var r = SyntaxReader(rbsp)
            try aud.code(&r)
            var w = SyntaxWriter()
            try aud.code(&w)
            rewritten = w.writer.bytes + remainder(of: rbsp, after: r)
        case 12:
            var filler = FillerData()
            var r = SyntaxReader(rbsp)
            try filler.code(&r)
            var w = SyntaxWriter()
            try filler.code(&w)
            rewritten = w.writer.bytes + remainder(of: rbsp, after: r)
        case 15:
            var subset = try SubsetSequenceParameterSet(rbsp: rbsp)
            store.insert(subset)
            var w = SyntaxWriter()
            try subset.code(&w)
            rewritten = w.writer.bytes
        case 1, 5:
            let (header, bits) = try SliceHeader.parse(rbsp: rbsp, nalUnitType: nal.type.rawValue, nalRefIdc: nal.nalRefIdc,
                                                       idrPicFlag: nal.type == .idrSlice, store: &store)
            var w = try header.write(nalUnitType: nal.type.rawValue, nalRefIdc: nal.nalRefIdc,
                                     idrPicFlag: nal.type == .idrSlice, store: &store)
            w.appendBits(of: rbsp, from: bits)
            rewritten = w.bytes
        default:
            out.append(contentsOf: nal.bytes)
            return
        }
        if rewritten.elementsEqual(rbsp) {
            out.append(contentsOf: nal.bytes)
        } else {
            out.append(contentsOf: nal.bytes.prefix(headerLength))
            EmulationPrevention.appendEBSP(of: rewritten, to: &out)
        }
    }
}
