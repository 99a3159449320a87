extension SyntaxCoder {
    /// `u(n)` of an element whose values the specification names (a type over the element's
    /// integer, such as ``NALUnitType`` or ``PrimaryPicType``).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` when reading an integer that names no value;
    ///   the coder's errors.
    @inlinable
    public mutating func u<T: RawRepresentable>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error)
    where T.RawValue: FixedWidthInteger {
        var raw = value.rawValue
        try u(bits, &raw, name)
        guard isReading else { return }
        guard let v = T(rawValue: raw) else { throw .outOfRange("\(name)", Int64(truncatingIfNeeded: raw)) }
        value = v
    }

    /// `ue(v)` of an element whose values the specification names (``SliceType``,
    /// ``ChromaFormat``), with a range check on the integer.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for an integer outside `range` or naming no
    ///   value; the coder's errors.
    @inlinable
    public mutating func ue<T: RawRepresentable>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T.RawValue>) throws(H264Error)
    where T.RawValue: FixedWidthInteger {
        var raw = value.rawValue
        try ue(&raw, name, range)
        guard isReading else { return }
        guard let v = T(rawValue: raw) else { throw .outOfRange("\(name)", Int64(truncatingIfNeeded: raw)) }
        value = v
    }
}
