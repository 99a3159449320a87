extension SyntaxCoder {
    /// The default ``SyntaxCoder/byteElements(_:count:_:)``: one `u(8)` element per byte,
    /// named `name(i)` (`payload_byte[3]`), as FFmpeg traces user data.
    /// Callers check `count` against the bits available first (it sizes an allocation).
    /// - Complexity: O(count).
    public mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        try byteElementsOneByOne(&bytes, count: count, name)
    }

    /// Codes the bytes as one `u(8)` element each: the default ``SyntaxCoder/byteElements(_:count:_:)``,
    /// which a coder that overrides it can fall back to.
    public mutating func byteElementsOneByOne(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        if isReading {
            guard count >= 0 else { throw .outOfRange("\(name(0)) count", Int64(count)) }
            var out = [UInt8]()
            out.reserveCapacity(count)
            for i in 0..<count {
                var b: UInt8 = 0
                try u(8, &b, name(i))
                out.append(b)
            }
            bytes = out
        } else {
            guard bytes.count == count else { throw .outOfRange("\(name(0)) count", Int64(bytes.count)) }
            for i in bytes.indices {
                var b = bytes[i]
                try u(8, &b, name(i &- bytes.startIndex))
            }
        }
    }
}
