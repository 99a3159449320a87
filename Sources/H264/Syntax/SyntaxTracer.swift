/// One traced syntax element, or a run of byte elements (`user_data_payload_byte[0]`,
/// `user_data_payload_byte[1]`, ...) kept as one.
///
/// An element costs a fixed size and no heap allocation: its name is a ``SyntaxName`` (a static
/// string and subscripts), turned into text only when printed. A run of byte elements refers to
/// the bytes it covers instead of holding one element per byte, so tracing a 16 MiB
/// `user_data_unregistered` payload costs one element; ``expanded`` and ``forEachLine(_:)`` give
/// the bytes one by one, as FFmpeg's `trace_headers` prints them.
public struct TraceElement: Sendable, Hashable, CustomStringConvertible {
    /// Bit position of the element's first bit in the NAL unit's RBSP (header included).
    public var bitPosition: Int
    /// The element name with subscripts; for a run, the first byte's.
    public var syntaxName: SyntaxName
    /// The decoded value; for a run, the first byte.
    public var value: Int64
    /// For a run of byte elements: the bytes, each an element 8 bits after the one before, with
    /// the last subscript counting up from ``syntaxName``'s. Nil for a single element.
    public var run: ArraySlice<UInt8>?

    /// Creates a single element.
    public init(bitPosition: Int, name: SyntaxName, value: Int64) {
        self.bitPosition = bitPosition
        self.syntaxName = name
        self.value = value
        self.run = nil
    }

    /// Creates a run of byte elements named `name` (one subscript, counting up by byte).
    public init(bitPosition: Int, name: SyntaxName, bytes: ArraySlice<UInt8>) {
        self.bitPosition = bitPosition
        self.syntaxName = name
        self.value = Int64(bytes.first ?? 0)
        self.run = bytes
    }

    /// The element name with subscripts, as FFmpeg's `trace_headers` prints it.
    public var name: String { syntaxName.description }

    /// The number of syntax elements this stands for: 1, or the run's byte count.
    public var elementCount: Int { run?.count ?? 1 }

    /// The syntax elements one by one: itself, or one element per byte of a run.
    /// - Complexity: O(``elementCount``).
    public var expanded: [TraceElement] {
        guard let run else { return [self] }
        var out: [TraceElement] = []
        out.reserveCapacity(run.count)
        forEachElement { out.append($0) }
        return out
    }

    /// Calls `body` with each syntax element this stands for, without storing them.
    public func forEachElement(_ body: (TraceElement) throws -> Void) rethrows {
        guard let run else { return try body(self) }
        var position = bitPosition
        var index = syntaxName.subscriptCount == 2 ? syntaxName.j : syntaxName.i
        for byte in run {
            let name = syntaxName.subscriptCount == 2 ? SyntaxName(syntaxName.base, syntaxName.i, index)
                : SyntaxName(syntaxName.base, index)
            try body(TraceElement(bitPosition: position, name: name, value: Int64(byte)))
            position &+= 8  // within the RBSP's bit count
            index &+= 1
        }
    }

    /// Calls `body` with each line `h264 trace` prints for this element (one per byte of a run).
    public func forEachLine(_ body: (String) throws -> Void) rethrows {
        try forEachElement { try body("\($0.bitPosition) \($0.name) = \($0.value)") }
    }

    /// `<bit position> <name> = <value>`, the `h264 trace` line format; a run's lines are
    /// joined with newlines.
    public var description: String {
        var lines: [String] = []
        forEachLine { lines.append($0) }
        return lines.joined(separator: "\n")
    }
}

/// Reads syntax elements like ``SyntaxReader`` and records each one: into ``elements``, or,
/// when a ``sink`` is set, by handing each element to it as it is read (nothing is kept: a
/// trace that is printed as it goes costs no memory per element).
///
/// Byte elements (``SyntaxCoder/byteElements(_:count:_:)``: user data, raw SEI payloads) are
/// recorded as one run element.
public struct SyntaxTracer: SyntaxCoder {
    /// The reader doing the work.
    public var inner: SyntaxReader
    /// Every element read so far, in order, when there is no ``sink``.
    public var elements: [TraceElement] = []
    /// Receives each element as it is read, instead of ``elements``.
    public var sink: ((TraceElement) -> Void)?
    /// Added to every recorded bit position (for example 8 when the RBSP starts after the
    /// NAL unit header byte).
    public var positionOffset: Int

    /// Creates a tracer over an RBSP.
    public init(_ rbsp: ArraySlice<UInt8>, positionOffset: Int = 0, sink: ((TraceElement) -> Void)? = nil) {
        inner = SyntaxReader(rbsp)
        self.positionOffset = positionOffset
        self.sink = sink
    }

    /// Records an element that is not read through the coder (the NAL unit header, for example).
    public mutating func record(_ name: SyntaxName, _ value: Int64, at position: Int) {
        emit(TraceElement(bitPosition: position &+ positionOffset, name: name, value: value))
    }

    private mutating func emit(_ element: TraceElement) {
        if let sink { sink(element) } else { elements.append(element) }
    }

    public var isReading: Bool { true }
    public var bitPosition: Int { inner.bitPosition }
    public var isAtEnd: Bool { inner.isAtEnd }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        let p = inner.bitPosition
        try inner.u(bits, &value, name)
        record(name, Int64(truncatingIfNeeded: value), at: p)
    }

    public mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let p = inner.bitPosition
        try inner.u(bits, &value, name, range)
        record(name, Int64(truncatingIfNeeded: value), at: p)
    }

    public mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let p = inner.bitPosition
        try inner.ue(&value, name, range)
        record(name, Int64(truncatingIfNeeded: value), at: p)
    }

    public mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let p = inner.bitPosition
        try inner.se(&value, name, range)
        record(name, Int64(truncatingIfNeeded: value), at: p)
    }

    public mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) {
        let p = inner.bitPosition
        try inner.flag(&value, name)
        record(name, value ? 1 : 0, at: p)
    }

    public mutating func moreRBSPData(writerAnswer: Bool) -> Bool { inner.moreRBSPData(writerAnswer: writerAnswer) }

    /// Looks through the reader: nothing is recorded (and the element list is not copied).
    public func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        try inner.peekBits(count, skipping: skip)
    }

    public mutating func trailingBits() throws(H264Error) {
        let p = inner.bitPosition
        try inner.trailingBits()
        record("rbsp_stop_one_bit", 1, at: p)
        var q = p &+ 1
        while q < inner.bitPosition { record("rbsp_alignment_zero_bit", 0, at: q); q &+= 1 }
    }

    public mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        try inner.bytes(&bytes, count: count, name)
    }

    /// Reads the bytes in one step and records them as one run element (one element per byte
    /// when the name has no subscript to count up).
    public mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        let first = name(0)
        guard first.subscriptCount > 0 else {
            // No subscript to count up: one u(8) element per byte.
            guard count >= 0, count <= inner.reader.bitsRemaining / 8 else { throw .truncated("\(first): \(count) bytes wanted") }
            return try byteElementsOneByOne(&bytes, count: count, name)
        }
        let p = inner.bitPosition
        try inner.bytes(&bytes, count: count, first)
        guard !bytes.isEmpty else { return }
        emit(TraceElement(bitPosition: p &+ positionOffset, name: first, bytes: bytes[...]))
    }
}
