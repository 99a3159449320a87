/// How the parameter-set parsers treat what real streams do that the specification forbids.
///
/// Three deviations are common in the field (``ParseDeviation``): bytes after
/// `rbsp_trailing_bits()`, a VUI cut short (some encoders write an SPS whose VUI runs past the
/// end of the NAL unit; FFmpeg ignores such a VUI), and a parameter set that ends without
/// `rbsp_trailing_bits()`. A mode lists the deviations it *recovers* from; the others are errors.
/// Every recovery is reported as a ``ParseWarning``, so a lenient caller still knows.
///
/// - ``strict``: every deviation is an error (``H264Error/Code/invalidTrailingBits`` for trailing
///   data and missing trailing bits, ``H264Error/Code/truncated`` for a truncated VUI).
/// - ``lenient``: every deviation is recovered from.
/// - ``default``: trailing data is kept (and written back, so round trips stay exact), the rest
///   are errors: the behaviour of `init(rbsp:)`.
///
/// Applied by ``SequenceParameterSet/init(rbsp:mode:warnings:)``,
/// ``PictureParameterSet/init(rbsp:sps:mode:warnings:)`` and ``ParameterSetStore/ingest(_:)``
/// (with ``ParameterSetStore/parseMode``), and so by the access-unit assembler.
public struct ParseMode: Sendable, Hashable {
    /// The deviations recovered from; the others are errors.
    public var recovered: Set<ParseDeviation>

    /// A mode that recovers from `recovered`.
    public init(recovering recovered: Set<ParseDeviation>) { self.recovered = recovered }

    /// Every deviation is an error.
    public static let strict = ParseMode(recovering: [])
    /// Every deviation is recovered from, with a warning.
    public static let lenient = ParseMode(recovering: Set(ParseDeviation.allCases))
    /// Trailing data is kept; a truncated VUI and missing trailing bits are errors.
    public static let `default` = ParseMode(recovering: [.trailingData])
}

/// A way real streams depart from the specification that a lenient parse can recover from.
public enum ParseDeviation: String, Sendable, Hashable, CaseIterable {
    /// Bytes after `rbsp_trailing_bits()` (kept in `trailingData` and written back).
    case trailingData = "trailing_data"
    /// The VUI runs past the end of the SPS: it is dropped (`vui_parameters_present_flag` 0,
    /// inferred values), as FFmpeg does.
    case truncatedVUI = "truncated_vui"
    /// No `rbsp_trailing_bits()` (or malformed ones) after the last element: the data is kept.
    case missingTrailingBits = "missing_trailing_bits"
}

/// What a lenient parse recovered from.
public struct ParseWarning: Sendable, Hashable, CustomStringConvertible {
    /// The deviation.
    public var deviation: ParseDeviation
    /// The `nal_unit_type` of the structure (7 SPS, 8 PPS).
    public var nalUnitType: UInt8
    /// The error a strict parse reports for it.
    public var error: H264Error

    /// Creates a warning.
    public init(deviation: ParseDeviation, nalUnitType: UInt8, error: H264Error) {
        self.deviation = deviation
        self.nalUnitType = nalUnitType
        self.error = error
    }

    public var description: String { "nal_unit_type \(nalUnitType): \(deviation.rawValue) (\(error.reason))" }
}

/// The one place where parse modes are applied: a strict parse, then, on a deviation the mode
/// recovers from, a re-parse of a repaired RBSP.
enum LenientParsing {
    /// Parses `rbsp` with `parse` (which reads the whole structure, trailing bits and trailing
    /// data), applying `mode`.
    /// - Parameters:
    ///   - vuiFlagName: for an SPS, `vui_parameters_present_flag`: the element a truncated VUI is
    ///     dropped at. Nil for structures without a VUI.
    ///   - parse: a strict parse of an RBSP.
    ///   - trace: a traced parse of an RBSP, to find `vuiFlagName`'s position (only called on the
    ///     recovery path).
    ///   - trailingData: the trailing bytes of a parsed value.
    /// - Complexity: O(n) for a conforming RBSP; at most 10 more parses of it when recovering.
    static func parse<T>(_ rbsp: ArraySlice<UInt8>, nalUnitType: UInt8, mode: ParseMode, warnings: inout [ParseWarning],
                         vuiFlagName: String?,
                         parse: (ArraySlice<UInt8>) throws(H264Error) -> T,
                         trace: (ArraySlice<UInt8>) -> [TraceElement],
                         trailingData: (T) -> [UInt8]) throws(H264Error) -> T {
        let value: T
        do throws(H264Error) {
            value = try parse(rbsp)
        } catch let error where error.code == .truncated || error.code == .invalidTrailingBits {
            // 1. No trailing bits: add them after the last whole element, which ends in the
            //    last byte (zero padding bits of that byte are tried from the longest data).
            //    A parse succeeds only if the data ends exactly there, so a VUI cut short does
            //    not pass for this (its remaining elements would read the added bits).
            if mode.recovered.contains(.missingTrailingBits) {
                let bits = rbsp.count &* 8  // an RBSP is far smaller than Int.max / 8
                for dropped in 0..<Swift.min(8, bits &+ 1) {
                    if let repaired = try? parse(withTrailingBits(rbsp, keepingBits: bits &- dropped, thenZero: false)) {
                        warnings.append(ParseWarning(deviation: .missingTrailingBits, nalUnitType: nalUnitType, error: error))
                        return repaired
                    }
                }
            }
            // 2. A VUI that runs past the end: drop it at vui_parameters_present_flag.
            if error.code == .truncated, mode.recovered.contains(.truncatedVUI), let vuiFlagName,
               let flag = trace(rbsp).last(where: { $0.name == vuiFlagName && $0.value == 1 }),
               let repaired = try? parse(withTrailingBits(rbsp, keepingBits: flag.bitPosition, thenZero: true)) {
                warnings.append(ParseWarning(deviation: .truncatedVUI, nalUnitType: nalUnitType, error: error))
                return repaired
            }
            throw error
        }
        let trailing = trailingData(value)
        if !trailing.isEmpty {
            let error = H264Error.invalid(.invalidTrailingBits, "\(trailing.count) bytes after rbsp_trailing_bits()")
            guard mode.recovered.contains(.trailingData) else { throw error }
            warnings.append(ParseWarning(deviation: .trailingData, nalUnitType: nalUnitType, error: error))
        }
        return value
    }

    /// The first `keepingBits` bits of `rbsp`, then (when `thenZero`) a 0 bit, then
    /// `rbsp_trailing_bits()`.
    static func withTrailingBits(_ rbsp: ArraySlice<UInt8>, keepingBits: Int, thenZero: Bool) -> ArraySlice<UInt8> {
        var reader = SyntaxReader(rbsp)
        var writer = SyntaxWriter()
        var left = Swift.max(0, Swift.min(keepingBits, rbsp.count &* 8))
        // Bits copied as they are, then the repair; n <= 32 and <= the bits left: nothing fails.
        while left > 0 {
            let n = Swift.min(left, 32)
            var v: UInt32 = 0
            guard (try? reader.u(n, &v, "kept_bits")) != nil, (try? writer.u(n, &v, "kept_bits")) != nil else { break }
            left &-= n
        }
        var zero = false
        if thenZero { try? writer.flag(&zero, "repaired_flag") }
        try? writer.trailingBits()
        return writer.writer.bytes[...]
    }
}
