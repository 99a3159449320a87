extension SequenceParameterSet {
    /// Parses an SPS from its RBSP, applying `mode` to the deviations real streams contain.
    /// - Parameters:
    ///   - rbsp: the bytes after the NAL unit header, emulation prevention removed.
    ///   - mode: what to recover from (see ``ParseMode``).
    ///   - warnings: what was recovered from is appended here.
    /// - Throws: the errors of ``init(rbsp:)``; under ``ParseMode/strict`` also
    ///   ``H264Error/Code/invalidTrailingBits`` for bytes after `rbsp_trailing_bits()`.
    /// - Complexity: O(n); on a recovery, a few more parses of the same bytes.
    public init(rbsp: ArraySlice<UInt8>, mode: ParseMode, warnings: inout [ParseWarning]) throws(H264Error) {
        self = try LenientParsing.parse(
            rbsp, nalUnitType: 7, mode: mode, warnings: &warnings, vuiFlagName: "vui_parameters_present_flag",
            parse: { (bytes) throws(H264Error) in try SequenceParameterSet(rbsp: bytes) },
            trace: { bytes in
                var elements: [TraceElement] = []
                _ = try? SequenceParameterSet.trace(rbsp: bytes, context: .empty, into: &elements)
                return elements
            },
            trailingData: { $0.trailingData })
    }
}

extension PictureParameterSet {
    /// Parses a PPS from its RBSP, applying `mode` to the deviations real streams contain
    /// (a PPS has no VUI: trailing data and missing trailing bits).
    /// - Parameters:
    ///   - rbsp: the bytes after the NAL unit header, emulation prevention removed.
    ///   - context: where the SPS the PPS refers to is looked up.
    ///   - mode: what to recover from (see ``ParseMode``).
    ///   - warnings: what was recovered from is appended here.
    /// - Throws: the errors of ``SyntaxStructure/init(rbsp:context:)``; under
    ///   ``ParseMode/strict`` also ``H264Error/Code/invalidTrailingBits`` for bytes after
    ///   `rbsp_trailing_bits()`.
    /// - Complexity: O(n); on a recovery, up to 8 more parses of the same bytes.
    public init(rbsp: ArraySlice<UInt8>, context: some SyntaxContext, mode: ParseMode,
                warnings: inout [ParseWarning]) throws(H264Error) {
        self = try LenientParsing.parse(
            rbsp, nalUnitType: 8, mode: mode, warnings: &warnings, vuiFlagName: nil,
            parse: { (bytes) throws(H264Error) in try PictureParameterSet(rbsp: bytes, context: context) },
            trace: { _ in [] },
            trailingData: { $0.trailingData })
    }
}
