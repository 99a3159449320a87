/// Big-endian reads from a box payload held in memory.
///
/// `read*` consumes; every read checks the bytes left first and throws
/// ``MP4Error/Code/truncated`` instead of trapping. Indices are relative to the slice's
/// `startIndex`, never 0.
struct PayloadReader: Sendable {
    /// The bytes not yet consumed.
    private(set) var remaining: ArraySlice<UInt8>
    /// The box the payload belongs to, for error messages.
    let box: MP4FourCC

    init(_ bytes: ArraySlice<UInt8>, box: MP4FourCC) {
        remaining = bytes
        self.box = box
    }

    /// Number of bytes not yet consumed.
    var count: Int { remaining.count }

    /// Index (in the original buffer) of the next byte.
    var position: Int { remaining.startIndex }

    /// Consumes `n` bytes and returns them as a view.
    mutating func bytes(_ n: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining.count else {
            throw MP4Error.truncated("\(box): needs \(n) more bytes, \(remaining.count) left")
        }
        let start = remaining.startIndex
        let end = start &+ n  // n <= count: start + n <= endIndex
        defer { remaining = remaining[end...] }
        return remaining[start..<end]
    }

    mutating func skip(_ n: Int) throws(MP4Error) { _ = try bytes(n) }

    /// An unsigned big-endian integer of `size` bytes (1...8).
    mutating func uint(_ size: Int) throws(MP4Error) -> UInt64 {
        let b = try bytes(size)
        var v: UInt64 = 0
        for x in b { v = v << 8 | UInt64(x) }
        return v
    }

    mutating func u8() throws(MP4Error) -> UInt8 { UInt8(truncatingIfNeeded: try uint(1)) }
    mutating func u16() throws(MP4Error) -> UInt16 { UInt16(truncatingIfNeeded: try uint(2)) }
    mutating func u24() throws(MP4Error) -> UInt32 { UInt32(truncatingIfNeeded: try uint(3)) }
    mutating func u32() throws(MP4Error) -> UInt32 { UInt32(truncatingIfNeeded: try uint(4)) }
    mutating func u64() throws(MP4Error) -> UInt64 { try uint(8) }
    mutating func i32() throws(MP4Error) -> Int32 { Int32(bitPattern: try u32()) }
    mutating func i64() throws(MP4Error) -> Int64 { Int64(bitPattern: try u64()) }
    mutating func fourCC() throws(MP4Error) -> MP4FourCC { MP4FourCC(rawValue: try u32()) }

    /// The version byte and 24 flag bits of a full box.
    mutating func fullBoxHeader() throws(MP4Error) -> (version: UInt8, flags: UInt32) {
        let v = try u32()
        return (UInt8(truncatingIfNeeded: v >> 24), v & 0xFF_FFFF)
    }

    /// A 32-bit field for version 0, a 64-bit one for version 1.
    mutating func versioned(_ version: UInt8) throws(MP4Error) -> UInt64 {
        version == 1 ? try u64() : UInt64(try u32())
    }

    /// Checks that a table of `count` entries of `entrySize` bytes fits in the bytes left,
    /// before anything is allocated for it.
    /// - Returns: `count` as an `Int`.
    func checkTable(_ count: UInt64, entrySize: Int, _ what: @autoclosure () -> String) throws(MP4Error) -> Int {
        // count <= 2^32 and entrySize <= 16 at every call site: the product fits 64 bits.
        let needed = count &* UInt64(entrySize)
        guard needed <= UInt64(remaining.count) else {
            throw MP4Error.invalid(.invalidSampleTable,
                                   "\(box): \(what()) claims \(count) entries of \(entrySize) bytes, the box holds \(remaining.count) bytes")
        }
        return Int(count)
    }
}
