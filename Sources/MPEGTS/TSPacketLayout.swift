/// The fixed numbers of the transport packet layer (ISO/IEC 13818-1 2.4.3.2, 2.4.3.4), and the
/// codings every part of the module shares: 33-bit timestamps, the PCR, the sections' CRC.
enum TSPacketLayout {
    /// A transport packet's size.
    static let size = 188
    /// The M2TS (Blu-ray, AVCHD) packet: a 4-byte `TP_extra_header` and a transport packet.
    static let timestampedSize = 192
    /// `sync_byte`.
    static let syncByte: UInt8 = 0x47
    /// The bytes after the 4-byte header.
    static let payloadCapacity = 184
    /// The PAT's PID.
    static let patPID: UInt16 = 0
    /// The null packets' PID.
    static let nullPID: UInt16 = 0x1FFF
    /// Timestamps (PTS, DTS, PCR base) are 33 bits: they wrap at 2^33 ticks of 90 kHz (26.5 h).
    static let timestampModulus: Int64 = 1 << 33

    /// The 90 kHz ticks of `duration`, rounded to the nearest, saturating.
    static func ticks(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 90_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        // |attoseconds| < 10^18: times 9 stays below 9.1 * 10^18 < Int64.max.
        let part = (attoseconds &* 9 &+ (attoseconds < 0 ? -50_000_000_000_000 : 50_000_000_000_000)) / 100_000_000_000_000
        let (sum, o2) = whole.addingReportingOverflow(part)
        return o2 ? (seconds < 0 ? .min : .max) : sum
    }

    // MARK: 33-bit timestamps (2.4.3.7)

    /// Appends a PTS or DTS field: `prefix` (4 bits: 0010 PTS alone, 0011 PTS before a DTS,
    /// 0001 DTS), then the value's low 33 bits in three parts, each followed by a marker bit.
    static func appendTimestamp(_ value: Int64, prefix: UInt8, to out: inout [UInt8]) {
        let v = UInt64(bitPattern: value) & 0x1_FFFF_FFFF  // modulo 2^33
        out.append(prefix << 4 | UInt8(truncatingIfNeeded: v >> 29) & 0x0E | 1)
        out.append(UInt8(truncatingIfNeeded: v >> 22))
        out.append(UInt8(truncatingIfNeeded: v >> 14) | 1)
        out.append(UInt8(truncatingIfNeeded: v >> 7))
        out.append(UInt8(truncatingIfNeeded: v << 1) | 1)
    }

    /// The 33-bit value of a PTS or DTS field at `p` (five bytes, checked by the caller);
    /// marker bits are not checked (encoders get them wrong, decoders ignore them).
    static func readTimestamp(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> Int64 {
        let v = UInt64(b[p] & 0x0E) << 29 | UInt64(b[p + 1]) << 22 | UInt64(b[p + 2] & 0xFE) << 14
            | UInt64(b[p + 3]) << 7 | UInt64(b[p + 4]) >> 1
        return Int64(v)
    }

    // MARK: PCR (2.4.3.5)

    /// Appends a PCR: `program_clock_reference_base` (33 bits of 90 kHz), 6 reserved bits,
    /// `program_clock_reference_extension` (9 bits, 0...299, of 27 MHz).
    static func appendPCR(base: Int64, extension ext: UInt16 = 0, to out: inout [UInt8]) {
        let b = UInt64(bitPattern: base) & 0x1_FFFF_FFFF
        out.append(UInt8(truncatingIfNeeded: b >> 25))
        out.append(UInt8(truncatingIfNeeded: b >> 17))
        out.append(UInt8(truncatingIfNeeded: b >> 9))
        out.append(UInt8(truncatingIfNeeded: b >> 1))
        out.append(UInt8(truncatingIfNeeded: b << 7) | 0x7E | UInt8(truncatingIfNeeded: ext >> 8) & 1)
        out.append(UInt8(truncatingIfNeeded: ext))
    }

    // MARK: CRC (Annex A)

    /// The CRC_32 of PSI sections (Annex A: polynomial 0x04C11DB7, initial value all ones, no
    /// reflection, no final inversion): over a whole section with its CRC, 0.
    static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crc << 8 ^ crcTable[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ byte)] }
        return crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i) << 24
        for _ in 0..<8 { c = c & 0x8000_0000 != 0 ? c << 1 ^ 0x04C1_1DB7 : c << 1 }
        return c
    }
}
