/// Parsing and writing a slice header from and to a NAL unit.
extension SliceHeader {
    /// How many payload bytes are unescaped first: enough for almost every slice header, so
    /// that parsing does not copy a whole slice to strip its emulation-prevention bytes.
    public static let headerPrefixBytes = 32

    /// `IdrPicFlag` of a slice NAL unit: type 5, or type 20 with `non_idr_flag` 0.
    @inlinable
    public static func idrPicFlag(_ nal: NALUnit) -> Bool {
        if nal.type == .idrSlice { return true }
        if nal.type == .sliceExtension, let ext = nal.headerExtension, let first = ext.first {
            return first & 0x80 == 0 && first & 0x40 == 0  // svc_extension_flag 0, non_idr_flag 0
        }
        return false
    }

    /// Parses the slice header of a NAL unit of type 1, 5 or (MVC) 20, making its PPS and SPS
    /// active in `store`.
    ///
    /// The header is first read straight from the escaped payload and kept when no
    /// emulation-prevention byte lies within it; otherwise a bounded prefix of the payload
    /// (``headerPrefixBytes``) is unescaped, and the whole payload only when the header is
    /// longer than that. No slice is copied whole to read its header.
    /// - Returns: the header and its length in bits, counted from the start of the RBSP after
    ///   the NAL unit header (for CABAC, alignment bits included: slice data starts there).
    /// - Throws: ``H264Error/Code/unsupported`` for other NAL unit types and SVC slices,
    ///   ``H264Error/Code/missingParameterSet`` for an unknown PPS or SPS, reading errors.
    public static func parse(_ nal: NALUnit, store: inout ParameterSetStore) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        let type = nal.type.rawValue
        guard type == 1 || type == 5 || type == 20 else {
            throw H264Error.invalid(.unsupported, "nal_unit_type \(type) has no slice header here")
        }
        if type == 20, let ext = nal.headerExtension, let first = ext.first, first & 0x80 != 0 {
            throw H264Error.invalid(.unsupported, "SVC slice headers are not described")
        }
        let payload = nal.payload
        let idr = idrPicFlag(nal)
        let nalRefIdc = nal.nalRefIdc
        var header = SliceHeader()
        // Optimistic pass straight over the escaped bytes: valid when no emulation-prevention
        // byte lies within the bytes the header used (checked afterwards, on those bytes only).
        var r = SyntaxReader(payload)
        do throws(H264Error) {
            try header.code(&r, nalUnitType: type, nalRefIdc: nalRefIdc, idrPicFlag: idr, store: &store)
            let used = payload.startIndex &+ ((r.bitPosition &+ 7) >> 3)  // <= endIndex
            if EmulationPrevention.firstEmulationPreventionByte(in: payload[payload.startIndex..<used]) == nil {
                return (header, r.bitPosition)
            }
        } catch {
            // The error is the real one when no emulation-prevention byte lies before the
            // failing element's end (an element is at most 64 bits: 9 bytes from its start).
            let end = payload.startIndex &+ Swift.min(payload.count, (r.bitPosition >> 3) &+ 9)
            if EmulationPrevention.firstEmulationPreventionByte(in: payload[payload.startIndex..<end]) == nil { throw error }
        }
        if payload.count > headerPrefixBytes {
            let prefix = payload[payload.startIndex..<(payload.startIndex &+ headerPrefixBytes)]
            do throws(H264Error) {
                return try parse(rbsp: EmulationPrevention.rbsp(from: prefix), nalUnitType: type, nalRefIdc: nalRefIdc,
                                 idrPicFlag: idr, store: &store)
            } catch where error.code == .truncated {
                // The header is longer than the prefix: fall through to the whole payload.
            }
        }
        return try parse(rbsp: EmulationPrevention.rbsp(from: payload), nalUnitType: type, nalRefIdc: nalRefIdc,
                         idrPicFlag: idr, store: &store)
    }

    /// Parses a slice header from the start of an RBSP (after the NAL unit header).
    public static func parse(rbsp: ArraySlice<UInt8>, nalUnitType: UInt8, nalRefIdc: UInt8, idrPicFlag: Bool,
                             store: inout ParameterSetStore) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        var r = SyntaxReader(rbsp)
        var h = SliceHeader()
        try h.code(&r, nalUnitType: nalUnitType, nalRefIdc: nalRefIdc, idrPicFlag: idrPicFlag, store: &store)
        return (h, r.bitPosition)
    }

    /// Writes the header's bits (no NAL unit header), using the PPS and SPS in `store`.
    /// - Returns: a writer holding the header bits; the slice data goes after them.
    public func write(nalUnitType: UInt8, nalRefIdc: UInt8, idrPicFlag: Bool, store: inout ParameterSetStore) throws(H264Error) -> BitWriter {
        var w = SyntaxWriter()
        var copy = self
        try copy.code(&w, nalUnitType: nalUnitType, nalRefIdc: nalRefIdc, idrPicFlag: idrPicFlag, store: &store)
        return w.writer
    }
}
