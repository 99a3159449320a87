/// The coder behind ``SyntaxStructure/setInferredValues(context:)``: a ``SyntaxWriter`` (so that
/// bit positions and array counts behave as when writing) whose ``infer(_:_:_:)`` sets the
/// inferred value instead of checking it. What it writes is thrown away.
struct SyntaxInferrer: SyntaxCoder {
    var inner = SyntaxWriter()

    var isReading: Bool { false }
    var bitPosition: Int { inner.bitPosition }
    var isAtEnd: Bool { false }

    mutating func infer<T: Equatable>(_ value: inout T, _ inferred: T, _ name: SyntaxName) throws(H264Error) {
        value = inferred
    }

    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        try inner.u(bits, &value, name)
    }

    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try inner.u(bits, &value, name, range)
    }

    mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try inner.ue(&value, name, range)
    }

    mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        try inner.se(&value, name, range)
    }

    mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) { try inner.flag(&value, name) }

    mutating func moreRBSPData(writerAnswer: Bool) -> Bool { writerAnswer }

    mutating func trailingBits() throws(H264Error) { try inner.trailingBits() }

    mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        try inner.bytes(&bytes, count: count, name)
    }
}
