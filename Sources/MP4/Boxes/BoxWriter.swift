import MediaSupport

/// Builds boxes in memory: fields appended with the shared big-endian writer (MediaSupport's
/// `write*` on a byte array), and boxes whose size is filled in once their body is written
/// (the `writeLengthPrefixed` pattern).
struct BoxWriter: Sendable {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    init() {}

    init(reservingCapacity n: Int) { bytes.reserveCapacity(n) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u16(_ v: UInt16) { bytes.writeUInt16(v) }

    mutating func u24(_ v: UInt32) { bytes.writeUInt24(v) }

    mutating func u32(_ v: UInt32) { bytes.writeUInt32(v) }

    mutating func u64(_ v: UInt64) { bytes.writeUInt64(v) }

    mutating func i32(_ v: Int32) { bytes.writeInt32(v) }

    mutating func i64(_ v: Int64) { bytes.writeInt64(v) }

    mutating func fourCC(_ c: MP4FourCC) { bytes.writeUInt32(c.rawValue) }

    mutating func zeros(_ n: Int) { bytes.writeZeros(n) }

    mutating func append<C: Collection>(_ other: C) where C.Element == UInt8 { bytes.append(contentsOf: other) }

    /// A 16.16 fixed-point number from an integer part.
    mutating func fixed16(_ integer: Int) {
        u32(UInt32(truncatingIfNeeded: max(0, min(integer, 0xFFFF))) << 16)
    }

    /// The unity transformation matrix of `mvhd` and `tkhd` (9 values, 16.16 and 2.30).
    mutating func unityMatrix() {
        for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { u32(v) }
    }

    /// Writes a box: its header, then whatever `body` writes, with the size filled in after.
    /// A box larger than 4 GiB - 1 gets a 64-bit `largesize` (the header grows by 8 bytes).
    mutating func box<E: Error>(_ type: MP4FourCC, _ body: (inout BoxWriter) throws(E) -> Void) throws(E) {
        let start = bytes.count
        u32(0)
        fourCC(type)
        try body(&self)
        patchSize(from: start)
    }

    /// Writes a full box: version and 24 bits of flags after the header.
    mutating func fullBox<E: Error>(_ type: MP4FourCC, version: UInt8, flags: UInt32,
                                    _ body: (inout BoxWriter) throws(E) -> Void) throws(E) {
        try box(type) { (w: inout BoxWriter) throws(E) in
            w.u8(version)
            w.u24(flags)
            try body(&w)
        }
    }

    /// Fills in the 32-bit size of the box that starts at `start`, or turns its header into a
    /// 64-bit one when the box does not fit 32 bits.
    private mutating func patchSize(from start: Int) {
        let size = bytes.count &- start  // only grew since start
        if size <= Int(UInt32.max) {
            bytes.setUInt32(UInt32(truncatingIfNeeded: size), at: start)
            return
        }
        let large = UInt64(size) &+ 8  // an in-memory size is far below 2^63
        var header: [UInt8] = [0, 0, 0, 1]
        header.append(contentsOf: bytes[(start &+ 4)..<(start &+ 8)])
        header.writeUInt64(large)
        bytes.replaceSubrange(start..<(start &+ 8), with: header)
    }
}
