/// Parsing and writing a slice header from and to a NAL unit.
extension SliceHeader {
    /// How many payload bytes are unescaped first: enough for almost every slice header, so
    /// that parsing does not copy a whole slice to strip its emulation-prevention bytes.
    public static let headerPrefixBytes = 32

    /// `IdrPicFlag` of a slice NAL unit: type 5, or type 20 with `non_idr_flag` 0.
    @inlinable
    public static func idrPicFlag(_ nal: NALUnit) -> Bool { NALUnitHeader(nal).idrPicFlag }

    /// Parses the slice header of a NAL unit of type 1, 5 or (MVC) 20, with its PPS and SPS
    /// looked up in `context`. The store is not changed (to make the slice's parameter sets the
    /// active ones, call ``ParameterSetStore/activate(_:)``).
    ///
    /// The header is first read straight from the escaped payload and kept when no
    /// emulation-prevention byte lies within it; otherwise a bounded prefix of the payload
    /// (``headerPrefixBytes``) is unescaped, and the whole payload only when the header is
    /// longer than that. No slice is copied whole to read its header.
    /// - Returns: the header and its length in bits, counted from the start of the RBSP after
    ///   the NAL unit header (for CABAC, alignment bits included: slice data starts there).
    /// - Throws: ``H264Error/Code/unsupported`` for other NAL unit types and SVC slices,
    ///   ``H264Error/Code/missingParameterSet`` for an unknown PPS or SPS, reading errors.
    /// - Complexity: O(header bits); O(n) in the payload only when an emulation-prevention byte
    ///   falls inside a header longer than ``headerPrefixBytes``.
    public static func parse(_ nal: NALUnit, context: ParameterSetStore) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        try parseNALUnit(nal, context: context)
    }

    /// Parses the slice header of a NAL unit like the variant that takes a ``ParameterSetStore``,
    /// with any context.
    public static func parse(_ nal: NALUnit, context: some SyntaxContext) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        try parseNALUnit(nal, context: context)
    }

    /// Parses the slice header of `nal` into `header`, reusing the storage of its lists (the
    /// reference list modifications, the prediction weights, the marking operations): what
    /// `parse(_:context:)` does, without allocating once `header`'s lists have held
    /// as many entries as this slice's. For a loop over a stream's slices, with one header
    /// kept across them.
    ///
    /// Whatever `header` held before (another slice, of any kind, or what a failed parse left),
    /// it ends equal to the header `parse(_:context:)` returns. A weight table or
    /// marking that this slice does not code is nil, its storage kept for the next slice that
    /// does. When parsing fails, `header` holds an unspecified (valid) header, storage kept.
    /// - Parameters:
    ///   - nal: a NAL unit of type 1, 5 or (MVC) 20.
    ///   - context: the parameter sets; not changed.
    ///   - header: the header to parse into.
    /// - Returns: the header's length in bits (as `parse(_:context:)`'s `bitLength`).
    /// - Throws: the errors of `parse(_:context:)`.
    /// - Complexity: O(header bits); no allocation when `header`'s lists have the capacity this
    ///   slice needs and no emulation-prevention byte lies within the header. (The first parse
    ///   into a header makes the storage of its lists once; so does a parse into a header whose
    ///   lists are shared with a copy of it.)
    @discardableResult
    public static func parse(_ nal: NALUnit, context: ParameterSetStore, into header: inout SliceHeader) throws(H264Error) -> Int {
        header.resetForReading(nalUnitHeader: NALUnitHeader(nal), keepingStorage: true)
        return try parseNALUnit(nal, into: &header, context: context, keepingStorage: true)
    }

    /// Parses the slice header of `nal` into `header`, reusing its lists' storage, like the
    /// variant that takes a ``ParameterSetStore``, with any context.
    /// - Returns: the header's length in bits.
    /// - Throws: the errors of `parse(_:context:)`.
    /// - Complexity: O(header bits); see the variant that takes a ``ParameterSetStore``.
    @discardableResult
    public static func parse(_ nal: NALUnit, context: some SyntaxContext, into header: inout SliceHeader) throws(H264Error) -> Int {
        header.resetForReading(nalUnitHeader: NALUnitHeader(nal), keepingStorage: true)
        return try parseNALUnit(nal, into: &header, context: context, keepingStorage: true)
    }

    /// Makes this a fresh header for `nalUnitHeader` (`SliceHeader(nalUnitHeader:)`), keeping
    /// the storage of its lists (emptied) and of its optional tables (absent).
    ///
    /// `keepingStorage`: a header kept across slices (``parse(_:context:into:)``) gets storage
    /// for its lists once, if it has none or shares it with a copy, so that every later slice
    /// codes them in place (no value made and dropped per slice). Otherwise no storage is made.
    ///
    /// Not `self = SliceHeader(...)`: that assignment would drop the lists' storage. Every
    /// stored property of ``SliceHeader`` must be reset here (`SliceHeaderReuseTests` checks a
    /// header with every field set).
    @inline(__always)
    mutating func resetForReading(nalUnitHeader: NALUnitHeader, keepingStorage: Bool = false) {
        // Every scalar (the marking's flags and presence among them) at its default: the
        // packed lanes set whole.
        fields = SliceHeaderFields(nalUnitHeader: nalUnitHeader, sliceType: .i)
        // The lists emptied, the table absent (its content is reset when a slice codes it); the
        // marking's operations are reset when a slice codes them.
        lists.resetForReading(keepingStorage: keepingStorage)
    }

    /// ``parse(_:context:)``. This, the passes below and the header's coding functions are
    /// forced inline into the public entry points, the reader's elements into them: without it
    /// `slice_headers_per_s` fell 19% (Docs/Benchmarks.md, issue 28).
    @inline(__always)
    static func parseNALUnit<Context: SyntaxContext>(_ nal: NALUnit, context: Context) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        // Built in place, in the value returned: no copy (with its lists' retains) per pass.
        var result = (header: SliceHeader(nalUnitHeader: NALUnitHeader(nal)), bitLength: 0)
        result.bitLength = try parseNALUnit(nal, into: &result.header, context: context, keepingStorage: false)
        return result
    }

    /// What the pass straight over the escaped bytes found.
    private enum EscapedPass {
        /// The header, read without meeting an emulation-prevention byte.
        case parsed
        /// The header's real error (no emulation-prevention byte before it).
        case failed(H264Error)
        /// An emulation-prevention byte within the bytes read: read the RBSP instead.
        case escaped
    }

    /// Parses the slice header of `nal` into `header`, which holds a fresh header for its NAL
    /// unit header (`SliceHeader(nalUnitHeader:)`, or one reset by ``resetForReading(nalUnitHeader:)``).
    /// - Returns: the header's length in bits.
    ///
    /// `keepingStorage`: the header is kept across slices (``parse(_:context:into:)``): its
    /// lists' storage stays through a second pass over the RBSP.
    @inline(__always)
    static func parseNALUnit<Context: SyntaxContext>(_ nal: NALUnit, into header: inout SliceHeader, context: Context,
                                                     keepingStorage: Bool) throws(H264Error) -> Int {
        let payload = nal.payload
        // Optimistic pass straight over the escaped bytes: valid when no emulation-prevention
        // byte lies within the bytes the header used (checked afterwards, on those bytes only).
        var bitLength = 0
        let pass: EscapedPass = payload.withUnsafeBytes { raw in
            if raw.count < 24 {
                // A short slice (a skipped picture): read from a zero-padded copy, so that every
                // element takes the reader's 8-byte-load path.
                var padded: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: count + at least 8 zeros
                return Swift.withUnsafeMutableBytes(of: &padded) { copy in
                    copy.copyMemory(from: raw)  // raw.count < 24 <= copy.count
                    let bytes = UnsafeRawBufferPointer(rebasing: copy[0..<raw.count])
                    return escapedPass(bytes, padding: 32 &- raw.count, into: &header, bitLength: &bitLength, context: context)
                }
            }
            return escapedPass(raw, padding: 0, into: &header, bitLength: &bitLength, context: context)
        }
        switch pass {
        case .parsed: return bitLength
        case .failed(let error): throw error
        case .escaped: break
        }
        let nalUnitHeader = header.nalUnitHeader
        if payload.count > headerPrefixBytes {
            do throws(H264Error) {
                header.resetForReading(nalUnitHeader: nalUnitHeader, keepingStorage: keepingStorage)
                return try parseUnescapedPrefix(of: payload, into: &header, context: context)
            } catch where error.code == .truncated {
                // The header is longer than the prefix: fall through to the whole payload.
            }
        }
        header.resetForReading(nalUnitHeader: nalUnitHeader, keepingStorage: keepingStorage)
        return try parse(rbsp: EmulationPrevention.rbsp(from: payload), into: &header, context: context)
    }

    /// Parses the header from the first ``headerPrefixBytes`` bytes of `payload` with their
    /// emulation-prevention bytes removed, in a buffer on the stack (no allocation).
    /// - Returns: the header's length in bits; ``H264Error/Code/truncated`` when the header runs
    ///   past the prefix.
    @inline(never)
    static func parseUnescapedPrefix<Context: SyntaxContext>(of payload: ArraySlice<UInt8>, into header: inout SliceHeader,
                                                                     context: Context) throws(H264Error) -> Int {
        // 40 bytes: the prefix (at most 32 bytes once unescaped), then at least 8 zero bytes for
        // the reader's 8-byte loads.
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        let result: Result<Int, H264Error> = Swift.withUnsafeMutableBytes(of: &buffer) { out in
            // At most headerPrefixBytes = 32 bytes written into the 40.
            let count = payload.prefix(headerPrefixBytes).withUnsafeBufferPointer { src in
                EmulationPrevention.writeRBSP(of: src, to: out.baseAddress!)
            }
            var r = UnsafeSyntaxReader(UnsafeRawBufferPointer(rebasing: out[0..<count]), padding: out.count &- count)
            do throws(H264Error) {
                try header.code(&r, context: context)
                return .success(r.position)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The pass straight over the escaped bytes `raw` (`padding` zero bytes follow them).
    @inline(__always)
    private static func escapedPass<Context: SyntaxContext>(_ raw: UnsafeRawBufferPointer, padding: Int, into header: inout SliceHeader,
                                                            bitLength: inout Int, context: Context) -> EscapedPass {
        var r = UnsafeSyntaxReader(raw, padding: padding)
        // A read that fails here may have failed on an emulation-prevention byte: its error is
        // not built (no message, no allocation) and the RBSP is read instead, which gives the
        // real error when there is one.
        r.discardsErrors = true
        do throws(H264Error) {
            try header.code(&r, context: context)
            bitLength = r.position
            let used = (r.position &+ 7) &>> 3  // <= raw.count
            return Self.hasEmulationPrevention(raw, count: used) ? .escaped : .parsed
        } catch {
            if error.isIdentical(to: UnsafeSyntaxReader.discarded) { return .escaped }
            // An error of the header's own checks (an unknown PPS) is the real one when no
            // emulation-prevention byte lies before the failing element's end (an element is at
            // most 64 bits: 9 bytes from its start).
            let end = Swift.min(raw.count, (r.position &>> 3) &+ 9)
            return Self.hasEmulationPrevention(raw, count: end) ? .escaped : .failed(error)
        }
    }

    /// Parses a slice header from the start of an RBSP (after the NAL unit header).
    /// - Returns: the header and its length in bits.
    public static func parse(rbsp: ArraySlice<UInt8>, nalUnitHeader: NALUnitHeader,
                             context: some SyntaxContext) throws(H264Error) -> (header: SliceHeader, bitLength: Int) {
        var result = (header: SliceHeader(nalUnitHeader: nalUnitHeader), bitLength: 0)
        result.bitLength = try parse(rbsp: rbsp, into: &result.header, context: context)
        return result
    }

    /// Parses a slice header from the start of an RBSP into `header` (a fresh or reset one).
    /// - Returns: its length in bits.
    static func parse(rbsp: ArraySlice<UInt8>, into header: inout SliceHeader, context: some SyntaxContext) throws(H264Error) -> Int {
        try rbsp.withUnsafeSyntaxReader { (r: inout UnsafeSyntaxReader) throws(H264Error) in
            try header.code(&r, context: context)
            return r.position
        }
    }

    /// True when the first `count` bytes of `bytes` hold an emulation-prevention byte.
    @inline(__always)
    static func hasEmulationPrevention(_ bytes: UnsafeRawBufferPointer, count: Int) -> Bool {
        guard count >= 3, let base = bytes.baseAddress else { return false }
        return StartCodeScanner.find(base.assumingMemoryBound(to: UInt8.self), from: 0, count: count, third: 3) != nil
    }

    /// Writes the header's bits (no NAL unit header), using the PPS and SPS in `context`, which
    /// does not change.
    /// - Returns: a writer holding the header bits; the slice data goes after them.
    /// - Throws: the errors of ``code(_:context:)``.
    public func write(context: some SyntaxContext) throws(H264Error) -> BitWriter {
        var w = SyntaxWriter()
        var copy = self
        try copy.code(&w, context: context)
        return w.writer
    }
}
