/// A syntax structure of ITU-T H.264: one description, transcribed once from its syntax table,
/// reads it from an RBSP, writes it into one and traces it.
///
/// A conforming type implements ``code(_:context:)`` against a ``SyntaxCoder``; reading,
/// writing and tracing are that one function driven by ``SyntaxReader``, ``SyntaxWriter`` and
/// ``SyntaxTracer``. What the structure's syntax depends on beyond its own bits (the SPS a PPS
/// names, the PPS and SPS of a slice) comes from a ``SyntaxContext``, passed the same way to
/// every structure and never changed by coding.
///
/// Values the specification infers when an element is absent are explicit, as FFmpeg's coded
/// bitstream layer makes them (`infer()`): a reader sets them, a writer checks them and throws
/// ``H264Error/Code/valueOutOfRange`` for a value that contradicts the inference, and
/// ``setInferredValues(context:)`` sets them on a value built by hand.
///
/// Conformers: ``NALUnitHeader``, ``SequenceParameterSet``, ``SequenceParameterSetExtension``,
/// ``SubsetSequenceParameterSet``, ``PictureParameterSet``, ``SliceHeader``, ``SEINALUnit``,
/// ``AccessUnitDelimiter``, ``EndOfSequence``, ``EndOfStream``, ``FillerData`` and, outside the
/// RBSP syntax, ``AVCDecoderConfigurationRecord``.
public protocol SyntaxStructure: Sendable {
    /// The value a reader starts from; fields that a structure may leave uncoded hold their
    /// inferred values.
    init()

    /// The structure's syntax: reads, writes or traces it with `c`, looking up what it depends
    /// on in `context`.
    ///
    /// Reading fills `self` (inferred values included); writing emits `self` and leaves it
    /// unchanged; tracing reads and records every element.
    /// - Throws: the coder's errors; ``H264Error/Code/missingParameterSet`` when `context`
    ///   lacks a parameter set the syntax needs; ``H264Error/Code/valueOutOfRange`` when
    ///   writing a value outside its range or contradicting its inferred value.
    mutating func code<C: SyntaxCoder, Context: SyntaxContext>(_ c: inout C, context: Context) throws(H264Error)
}

extension SyntaxStructure {
    /// Reads the structure from the start of an RBSP (no NAL unit header, emulation prevention
    /// removed).
    /// - Throws: the errors of ``code(_:context:)``.
    /// - Complexity: O(n) in the bits read.
    @inlinable
    public init(rbsp: ArraySlice<UInt8>, context: some SyntaxContext) throws(H264Error) {
        self = try rbsp.withUnsafeSyntaxReader { (r: inout UnsafeSyntaxReader) throws(H264Error) in
            var value = Self()
            try value.code(&r, context: context)
            return value
        }
    }

    /// Writes the structure into a new RBSP (no NAL unit header, no emulation prevention).
    /// Neither `self` nor `context` changes. A structure that does not end byte aligned (a slice
    /// header) is padded with zero bits.
    /// - Throws: the errors of ``code(_:context:)``: a value out of its range or contradicting
    ///   its inferred value, a parameter set missing from `context`.
    /// - Complexity: O(n) in the bits written.
    @inlinable
    public func rbsp(context: some SyntaxContext) throws(H264Error) -> [UInt8] {
        var w = SyntaxWriter()
        var copy = self
        try copy.code(&w, context: context)
        return w.writer.bytes
    }

    /// Reads the structure from an RBSP like ``init(rbsp:context:)``, appending every element
    /// to `elements` as it is read, so that on error the elements before it are there.
    /// - Parameters:
    ///   - rbsp: the structure's RBSP.
    ///   - context: the facts from other structures that the syntax needs.
    ///   - positionOffset: added to every bit position (8 when the positions are to count from
    ///     the NAL unit header's first bit, as FFmpeg's `trace_headers` counts them).
    ///   - elements: the elements read, appended to.
    /// - Returns: the structure read.
    @discardableResult
    public static func trace(rbsp: ArraySlice<UInt8>, context: some SyntaxContext, positionOffset: Int = 0,
                             into elements: inout [TraceElement]) throws(H264Error) -> Self {
        var tracer = SyntaxTracer(rbsp, positionOffset: positionOffset)
        var value = Self()
        do throws(H264Error) {
            try value.code(&tracer, context: context)
        } catch {
            elements.append(contentsOf: tracer.elements)
            throw error
        }
        elements.append(contentsOf: tracer.elements)
        return value
    }

    /// Sets every value the syntax infers from the elements that are coded, as a reader would:
    /// for a value built by hand, after changing a presence flag (say `frame_cropping_flag`),
    /// before writing it. Nothing is read or written.
    /// - Throws: ``H264Error/Code/missingParameterSet`` when `context` lacks a parameter set the
    ///   syntax needs; ``H264Error/Code/valueOutOfRange`` for a coded value out of its range.
    ///   Arrays take the length their coded count gives (elements kept, new ones empty), and
    ///   a sub-structure the syntax codes but `self` lacks (a `dec_ref_pic_marking()`) is added.
    public mutating func setInferredValues(context: some SyntaxContext) throws(H264Error) {
        var inferrer = SyntaxInferrer()
        try code(&inferrer, context: context)
    }
}
