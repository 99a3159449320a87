extension SyntaxCoder {
    /// Makes `array` ready for coding `count` elements, one per index.
    ///
    /// Reading: `array` becomes `count` copies of `fill`, to be overwritten element by element,
    /// in its own storage when it has the room (no allocation). Writing: `array` must already
    /// hold exactly `count` elements.
    ///
    /// `count` must come from a range-checked syntax element: this is where the cap on
    /// input-controlled allocations is enforced (`limit`).
    /// - Throws: ``H264Error/Code/limitExceeded`` when `count` is negative or above `limit`;
    ///   ``H264Error/Code/valueOutOfRange`` when a written array has the wrong count.
    @inlinable
    public mutating func prepare<T>(_ array: inout [T], count: Int, limit: Int, fill: T, _ name: SyntaxName) throws(H264Error) {
        guard count >= 0, count <= limit else {
            throw failure { H264Error.invalid(.limitExceeded, "\(name): \(count) elements (at most \(limit))") }
        }
        if isReading {
            if array.count == count {
                // As long as the list read before (a kept header's): filled in place.
                for i in 0..<count { array[i] = fill }
            } else {
                if !array.isEmpty { array.removeAll(keepingCapacity: true) }
                array.append(contentsOf: repeatElement(fill, count: count))
            }
        } else if array.count != count {
            throw .outOfRange("\(name) element count", Int64(array.count))
        }
    }

    /// The default ``SyntaxCoder/alignmentOnes(_:)``: one `f(1)` element per bit.
    @inlinable
    public mutating func alignmentOnes(_ name: SyntaxName) throws(H264Error) {
        while bitPosition & 7 != 0 { try fixed(1, 1, name) }
    }

    /// A fixed-value element (`f(n)`), such as `cabac_alignment_one_bit`: reads it and checks
    /// the value, or writes the value.
    /// - Throws: ``H264Error/Code/invalidBitstream`` when the bits read differ from `value`.
    @inlinable
    public mutating func fixed(_ bits: Int, _ value: UInt32, _ name: SyntaxName) throws(H264Error) {
        var v = value
        try u(bits, &v, name)
        guard v == value else { throw H264Error.invalid(.invalidBitstream, "\(name) is \(v), must be \(value)") }
    }
}

extension SyntaxCoder {
    /// Bytes after `rbsp_trailing_bits()`: when reading, every byte left (not traced: FFmpeg
    /// does not show them); when writing, `data` as given. The coder must be byte aligned.
    /// - Complexity: O(n) in the bytes left.
    public mutating func trailingData(_ data: inout [UInt8]) throws(H264Error) {
        if isReading {
            var out: [UInt8] = []
            while !isAtEnd {
                var one: [UInt8] = []
                try bytes(&one, count: 1, "trailing_data")
                out.append(contentsOf: one)
            }
            data = out
        } else if !data.isEmpty {
            try bytes(&data, count: data.count, "trailing_data")
        }
    }
}

extension SyntaxCoder {
    /// The default ``SyntaxCoder/failure(_:)``: `make()`.
    @inlinable
    public func failure(_ make: () -> H264Error) -> H264Error { make() }
}
