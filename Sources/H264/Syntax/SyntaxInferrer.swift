/// The coder behind ``SyntaxStructure/setInferredValues(context:)``: a ``SyntaxWriter`` (so that
/// bit positions and array counts behave as when writing) whose ``infer(_:_:_:)`` sets the
/// inferred value instead of checking it and whose ``prepare(_:count:limit:fill:_:)`` sizes an
/// array to its coded count. What it writes is thrown away.
struct SyntaxInferrer: SyntaxCoder {
    var inner = SyntaxWriter()

    var isReading: Bool { false }
    var bitPosition: Int { inner.bitPosition }
    var isAtEnd: Bool { false }

    mutating func infer<T: Equatable>(_ value: inout T, _ inferred: T, _ name: SyntaxName) throws(H264Error) {
        value = inferred
    }

    /// Sizes `array` to `count` as a reader would, keeping the elements it has (the counts are
    /// coded elements, the arrays follow them).
    mutating func prepare<T>(_ array: inout [T], count: Int, limit: Int, fill: T, _ name: SyntaxName) throws(H264Error) {
        guard count >= 0, count <= limit else {
            throw H264Error.invalid(.limitExceeded, "\(name): \(count) elements (at most \(limit))")
        }
        if array.count > count {
            array.removeLast(array.count &- count)
        } else if array.count < count {
            array.append(contentsOf: repeatElement(fill, count: count &- array.count))
        }
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
