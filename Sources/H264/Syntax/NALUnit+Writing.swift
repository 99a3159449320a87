extension NALUnit {
    /// Makes a NAL unit from its header and RBSP: the header written through its syntax
    /// description, then the RBSP with emulation-prevention bytes inserted.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for a header field that does not fit;
    ///   ``H264Error/Code/forbiddenBitSet`` when `forbidden_zero_bit` is 1.
    /// - Complexity: O(n) in the RBSP's size.
    public init(header: NALUnitHeader, rbsp: some Collection<UInt8>) throws(H264Error) {
        var bytes = try header.rbsp(context: .empty)
        bytes.reserveCapacity(bytes.count &+ rbsp.count &+ 2)  // grows further when many bytes need escaping
        EmulationPrevention.appendEBSP(of: rbsp, to: &bytes)
        try self.init(bytes)
    }
}

extension SyntaxStructure {
    /// The structure as a NAL unit: `header`, then the RBSP it writes, escaped.
    /// - Throws: the errors of ``SyntaxStructure/rbsp(context:)`` and ``NALUnit/init(header:rbsp:)``.
    public func nalUnit(header: NALUnitHeader, context: some SyntaxContext) throws(H264Error) -> NALUnit {
        try NALUnit(header: header, rbsp: try rbsp(context: context))
    }
}
