import MediaSupport

/// MP4's mapping of the shared reader's failure (`ByteReader<MP4ByteReads>` throws
/// ``MP4Error``): bytes missing from a box are ``MP4Error/Code/truncated``, a count no read can
/// satisfy is ``MP4Error/Code/invalidBox``. Reads name their box as the field (`tkhd`), so the
/// message says where.
enum MP4ByteReads: ByteReadErrorMapping {
    static func failure(_ error: ByteReadError) -> MP4Error {
        switch error.kind {
        case .truncated: MP4Error.truncated(error.description)
        case .outOfRange: MP4Error.invalid(.invalidBox, error.description)
        }
    }
}

/// The fields every box payload shares (ISO/IEC 14496-12 4.2), read from a box held in memory.
extension ByteReader where Mapping == MP4ByteReads {
    /// A four-character code.
    mutating func readFourCC(_ box: StaticString) throws(MP4Error) -> MP4FourCC {
        MP4FourCC(rawValue: try readUInt32(box))
    }

    /// The version byte and 24 flag bits of a full box.
    mutating func readFullBoxHeader(_ box: StaticString) throws(MP4Error) -> (version: UInt8, flags: UInt32) {
        let v = try readUInt32(box)
        return (UInt8(truncatingIfNeeded: v >> 24), v & 0xFF_FFFF)
    }

    /// A 32-bit field for version 0, a 64-bit one for version 1.
    mutating func readVersioned(_ version: UInt8, _ box: StaticString) throws(MP4Error) -> UInt64 {
        version == 1 ? try readUInt64(box) : UInt64(try readUInt32(box))
    }

    /// Checks that a table of `count` entries of `entrySize` bytes fits in the bytes left,
    /// before anything is allocated for it.
    /// - Parameter what: the box and the count's field (`stts entry_count`).
    /// - Returns: `count` as an `Int`.
    func checkTable(_ count: UInt64, entrySize: Int, _ what: StaticString) throws(MP4Error) -> Int {
        // count <= 2^32 and entrySize <= 20 at every call site: the product fits 64 bits.
        let needed = count &* UInt64(entrySize)
        guard needed <= UInt64(self.count) else {
            throw MP4Error.invalid(.invalidSampleTable,
                                   "\(what) claims \(count) entries of \(entrySize) bytes, the box holds \(self.count) bytes")
        }
        return Int(count)
    }
}
