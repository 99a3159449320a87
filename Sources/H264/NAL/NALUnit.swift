/// One NAL unit: a view of its bytes (header and EBSP payload, no start code or length prefix)
/// inside the caller's buffer. Nothing is copied.
///
/// ITU-T H.264 7.3.1: `forbidden_zero_bit`, `nal_ref_idc`, `nal_unit_type`, and for types 14,
/// 20 and 21 a three-byte header extension.
public struct NALUnit: Hashable, Sendable {
    /// The NAL unit's bytes: the header byte(s) and the payload as carried (with
    /// emulation-prevention bytes).
    public let bytes: ArraySlice<UInt8>

    /// Wraps `bytes` as a NAL unit, checking the header.
    /// - Throws: ``H264Error/Code/emptyNALUnit`` for no bytes, ``H264Error/Code/forbiddenBitSet``
    ///   when `forbidden_zero_bit` is 1, ``H264Error/Code/truncated`` when a header extension is cut.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>) throws(H264Error) {
        guard let first = bytes.first else { throw H264Error.invalid(.emptyNALUnit, "NAL unit has no bytes") }
        try Self.checkHeader(first, count: bytes.count)
        self.bytes = bytes
    }

    /// The header checks of ``init(_:)-(ArraySlice<UInt8>)`` for a NAL unit of `count` (> 0)
    /// bytes whose first byte is `first`, for callers that frame NAL units without making one.
    @inlinable
    static func checkHeader(_ first: UInt8, count: Int) throws(H264Error) {
        let type = first & 0x1F
        if first & 0x80 != 0 || ((type == 14 || type == 20 || type == 21) && count < 4) {
            throw headerError(first, count: count)
        }
    }

    /// The error of ``checkHeader(_:count:)``, built out of line (the check is inlined in the
    /// splitters' loops).
    @usableFromInline @inline(never)
    static func headerError(_ first: UInt8, count: Int) -> H264Error {
        if first & 0x80 != 0 { return H264Error.invalid(.forbiddenBitSet, "forbidden_zero_bit is 1") }
        return .truncated("NAL unit header extension of type \(first & 0x1F) needs 4 bytes, has \(count)")
    }

    /// Wraps a whole array as a NAL unit.
    @inlinable
    public init(_ bytes: [UInt8]) throws(H264Error) { try self.init(bytes[...]) }

    /// Wraps bytes already known to be a valid NAL unit.
    @inlinable
    init(unchecked bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The first header byte.
    @inlinable public var headerByte: UInt8 { bytes[bytes.startIndex] }

    /// `forbidden_zero_bit`; always 0 for a NAL unit made by a checking initialiser.
    @inlinable public var forbiddenZeroBit: UInt8 { headerByte >> 7 }

    /// `nal_ref_idc` (0...3): nonzero when the NAL unit is part of a reference picture or holds
    /// a parameter set.
    @inlinable public var nalRefIdc: UInt8 { (headerByte >> 5) & 3 }

    /// `nal_unit_type`.
    @inlinable public var type: NALUnitType { NALUnitType(rawValue: headerByte & 0x1F) }

    /// Header length in bytes: 1, or 4 for types 14, 20 and 21.
    @inlinable public var headerLength: Int { type.hasHeaderExtension ? 4 : 1 }

    /// The three header extension bytes of types 14, 20 and 21 (`svc_extension_flag` or
    /// `avc_3d_extension_flag` first), or nil.
    @inlinable public var headerExtension: ArraySlice<UInt8>? {
        guard type.hasHeaderExtension else { return nil }
        let s = bytes.startIndex &+ 1
        return bytes[s..<(s &+ 3)]
    }

    /// Size in bytes (header and payload).
    @inlinable public var count: Int { bytes.count }

    /// The payload after the header, with emulation-prevention bytes as carried.
    @inlinable public var payload: ArraySlice<UInt8> { bytes[(bytes.startIndex &+ headerLength)...] }

    /// The raw byte sequence payload: the payload with emulation-prevention bytes removed.
    /// Copy-free when there are none.
    /// - Complexity: O(n).
    @inlinable public var rbsp: ArraySlice<UInt8> { EmulationPrevention.rbsp(from: payload) }

    /// The whole NAL unit (header included) with emulation-prevention bytes removed, so that
    /// bit positions match the specification's syntax tables, which start at `forbidden_zero_bit`.
    @inlinable public var rbspWithHeader: ArraySlice<UInt8> { EmulationPrevention.rbsp(from: bytes) }
}
