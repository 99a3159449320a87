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

    /// A structure that tolerates data after `rbsp_trailing_bits()` (an AUD, filler) read and
    /// written again, with that data kept as it was.
    static func rewrite<S: SyntaxStructure>(_ type: S.Type, _ rbsp: ArraySlice<UInt8>) throws(H264Error) -> [UInt8] {
        var r = SyntaxReader(rbsp)
        var value = S()
        try value.code(&r, context: .empty)
        return try value.rbsp(context: .empty) + rbsp.dropFirst(r.bitPosition >> 3)  // byte aligned after the trailing bits
    }

    static func appendRewritten(_ nal: NALUnit, store: inout ParameterSetStore, edits: HeaderEdits,
                                to out: inout [UInt8]) throws(H264Error) {
        let headerLength = nal.headerLength
        let rbsp = nal.rbsp
        var rewritten: [UInt8]
        switch nal.type {
        case .sps:
            let sps = try SequenceParameterSet(rbsp: rbsp)
            store.insert(sps)
            var edited = sps
            try edits.apply(to: &edited)
            rewritten = try edited.rbsp()
        case .pps:
            let pps = try PictureParameterSet(rbsp: rbsp, context: store)
            store.insert(pps)
            rewritten = try pps.rbsp(context: store)
        case .accessUnitDelimiter:
            rewritten = try rewrite(AccessUnitDelimiter.self, rbsp)
        case .fillerData:
            rewritten = try rewrite(FillerData.self, rbsp)
        case .subsetSPS:
            let subset = try SubsetSequenceParameterSet(rbsp: rbsp)
            store.insert(subset)
            rewritten = try subset.rbsp(context: store)
        case .slice, .idrSlice:
            let (header, bits) = try SliceHeader.parse(rbsp: rbsp, nalUnitHeader: NALUnitHeader(nal), context: store)
            var w = try header.write(context: store)
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
