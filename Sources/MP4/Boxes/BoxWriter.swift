/// Builds boxes in memory: big-endian fields appended to a byte array, and boxes whose size
/// is filled in once their body is written (the `writeLengthPrefixed` pattern).
struct BoxWriter: Sendable {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    init() {}

    init(reservingCapacity n: Int) { bytes.reserveCapacity(n) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func u24(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }

    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }

    mutating func fourCC(_ c: MP4FourCC) { u32(c.rawValue) }

    mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }

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
            let s = UInt32(truncatingIfNeeded: size)
            bytes[start] = UInt8(truncatingIfNeeded: s >> 24)
            bytes[start &+ 1] = UInt8(truncatingIfNeeded: s >> 16)
            bytes[start &+ 2] = UInt8(truncatingIfNeeded: s >> 8)
            bytes[start &+ 3] = UInt8(truncatingIfNeeded: s)
            return
        }
        let large = UInt64(size) &+ 8  // an in-memory size is far below 2^63
        var header: [UInt8] = [0, 0, 0, 1]
        header.append(contentsOf: bytes[(start &+ 4)..<(start &+ 8)])
        withUnsafeBytes(of: large.bigEndian) { header.append(contentsOf: $0) }
        bytes.replaceSubrange(start..<(start &+ 8), with: header)
    }
}
