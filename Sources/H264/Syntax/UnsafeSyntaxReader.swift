/// The library's one implementation of the bit reads of clause 7.2 and 9.1 (`u(n)`, `ue(v)`,
/// `se(v)`, flags, `more_rbsp_data()`, `rbsp_trailing_bits()`), over memory the caller keeps
/// valid while it reads.
///
/// The parsers (slice headers, parameter sets, SEI, the partial readers) make one for a whole
/// structure (``withUnsafeSyntaxReader(_:_:)``, or over a stack buffer they own), so that its
/// pointer never outlives the bytes: an element is then one unaligned 8-byte load when 8 bytes
/// remain (`ue(v)` of up to 57 bits, `u(n)` and flags), and a byte-wise path only in the last 8
/// bytes. ``BitReader`` (and through it ``SyntaxReader`` and ``SyntaxTracer``) makes one for
/// each read over its slice's memory: the same values, errors and bit positions.
///
/// The structures' descriptions are not touched: it is one more ``SyntaxCoder``, and the
/// generic `code(_:context:)` functions are specialised for it. Its element reads are forced
/// inline (`@inline(__always)`): the slice-header and parameter-set coding functions are large
/// enough that the inliner leaves calls in them (without it, `slice_headers_per_s` fell 10% and
/// `parse_headers_gbps` 7%: Docs/Benchmarks.md, issue 28).
@usableFromInline
struct UnsafeSyntaxReader: SyntaxCoder {
    /// The first byte (nil only when `byteCount` is 0).
    @usableFromInline let base: UnsafeRawPointer?
    /// The bytes of the structure from `base`.
    @usableFromInline let byteCount: Int
    /// The bytes from `base` that 8-byte loads may touch (>= `byteCount`; those past it are 0).
    @usableFromInline let loadableCount: Int
    /// The position of the next bit, counted from `base`'s first bit.
    @usableFromInline var position = 0
    /// When set, every failure throws ``discarded`` instead of an error with its message: for a
    /// read whose failure the caller does not report (the slice header's pass over the escaped
    /// bytes reads again from the RBSP to report one), so that it builds no message.
    @usableFromInline var discardsErrors = false

    /// A reader of `bytes`; `padding` zero bytes follow them in memory (loads may read them).
    @inlinable init(_ bytes: UnsafeRawBufferPointer, padding: Int = 0) {
        base = bytes.baseAddress
        byteCount = bytes.count
        loadableCount = bytes.count &+ padding
    }

    @inlinable var isReading: Bool { true }
    @inlinable var bitPosition: Int { position }
    @inlinable var bitCount: Int { byteCount &<< 3 }  // a buffer's count times 8 fits Int on 64-bit
    @inlinable var bitsRemaining: Int { bitCount &- position }  // position never exceeds bitCount
    @inlinable var isAtEnd: Bool { position >= bitCount }

    /// The 64 bits from the byte holding the next bit, shifted so that the next bit is the most
    /// significant one: at least 57 of them are the stream's. Needs 8 bytes from that byte.
    @inlinable @inline(__always)
    func window(at byte: Int) -> UInt64 {
        let word = UInt64(bigEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: byte, as: UInt64.self))
        return word &<< UInt64(position & 7)
    }

    /// The next `count` bits (0...64) without consuming them; bits past the end read as 0.
    @inlinable @inline(__always)
    func peek(_ count: Int) -> UInt64 {
        let byte = position &>> 3
        if count > 0 && count <= 57 && byte <= loadableCount &- 8 {
            return window(at: byte) &>> UInt64(64 &- count)  // 1 <= count <= 57; bits past the end are 0
        }
        return peekSlowly(count)
    }

    /// ``peek(_:)`` in the last 8 bytes or for more than 57 bits.
    @usableFromInline @inline(never)
    func peekSlowly(_ count: Int) -> UInt64 {
        guard count > 0 else { return 0 }
        let byte = position &>> 3
        var high: UInt64 = 0  // the 8 bytes from `byte`, zero past the end
        for k in 0..<8 {
            let i = byte &+ k
            high = high << 8 | (i < byteCount ? UInt64(base.unsafelyUnwrapped.load(fromByteOffset: i, as: UInt8.self)) : 0)
        }
        let ninth = byte &+ 8 < byteCount ? UInt64(base.unsafelyUnwrapped.load(fromByteOffset: byte &+ 8, as: UInt8.self)) : 0
        let offset = UInt64(position & 7)
        let bits = high << offset | ninth >> (8 &- offset)  // smart shifts: 0 when out of range
        return bits >> UInt64(64 &- Swift.min(count, 64))
    }

    /// `u(n)` for `count` in 0...64.
    @inlinable @inline(__always)
    mutating func readBits(_ count: Int) throws(H264Error) -> UInt64 {
        guard count <= bitsRemaining else { throw failure { Self.truncated(count, at: position, left: bitsRemaining) } }
        let v = peek(count)
        position &+= count  // count <= bitsRemaining
        return v
    }

    /// `ue(v)` (9.1): at most 31 leading zero bits.
    @inlinable @inline(__always)
    mutating func readUE() throws(H264Error) -> UInt32 {
        let byte = position &>> 3
        if byte <= loadableCount &- 8 {
            let w = window(at: byte)
            let zeros = w.leadingZeroBitCount
            let length = zeros &* 2 &+ 1
            if zeros <= 28 && length <= bitsRemaining {
                // length <= 57 bits, all in the window and in the structure's bytes.
                position &+= length
                return UInt32(truncatingIfNeeded: (w &>> UInt64(64 &- length)) &- 1)  // the code is >= 1
            }
        }
        return try readUESlowly()
    }

    /// `se(v)` (9.1.1): ``readUE()`` mapped to 0, 1, -1, 2, -2, ...
    @inlinable
    mutating func readSE() throws(H264Error) -> Int32 {
        let k = try readUE()
        // k <= 2^32 - 2, so (k + 1) / 2 <= 2^31 - 1 fits Int32.
        let magnitude = Int32(truncatingIfNeeded: (UInt64(k) &+ 1) &>> 1)
        return k & 1 == 1 ? magnitude : 0 &- magnitude
    }

    /// ``readUE()`` in the last 8 bytes or for more than 28 leading zero bits.
    @usableFromInline @inline(never)
    mutating func readUESlowly() throws(H264Error) -> UInt32 {
        let window = peekSlowly(32)
        guard window != 0 else {
            if bitsRemaining < 32 { throw failure { H264Error.truncated("ue(v) at bit \(position) runs past the end") } }
            throw failure { H264Error.invalid(.invalidExpGolomb, "ue(v) at bit \(position) has more than 31 leading zero bits") }
        }
        let zeros = window.leadingZeroBitCount &- 32  // 0...31
        let length = zeros &* 2 &+ 1
        guard length <= bitsRemaining else { throw failure { H264Error.truncated("ue(v) at bit \(position) runs past the end") } }
        let v = peekSlowly(length)
        position &+= length
        return UInt32(truncatingIfNeeded: v &- 1)  // 1 <= v < 2^32
    }

    /// The error a failed read throws: `make()`'s, or ``discarded`` when ``discardsErrors``.
    @usableFromInline @inline(never)
    func failure(_ make: () -> H264Error) -> H264Error {
        discardsErrors ? Self.discarded : make()
    }

    /// What every failure throws while ``discardsErrors`` is set (made once).
    static let discarded = H264Error.invalid(.invalidBitstream, "a read whose error is not reported failed")

    @usableFromInline @inline(never)
    static func truncated(_ count: Int, at position: Int, left: Int) -> H264Error {
        .truncated("needed \(count) bits at bit \(position), \(left) left")
    }

    /// ``SyntaxCoder/alignmentOnes(_:)`` in one read: the bits to the boundary must all be 1.
    @inlinable @inline(__always)
    mutating func alignmentOnes(_ name: SyntaxName) throws(H264Error) {
        let count = (8 &- (position & 7)) & 7
        guard count != 0 else { return }
        let bits = try readBits(count)
        guard bits == (1 &<< UInt64(count)) &- 1 else { throw failure { Self.notOne(name) } }  // count <= 7
    }

    @usableFromInline @inline(never)
    static func notOne(_ name: SyntaxName) -> H264Error {
        H264Error.invalid(.invalidBitstream, "\(name) is 0, must be 1")
    }

    @usableFromInline @inline(never)
    static func outOfRange(_ name: SyntaxName, _ value: Int64) -> H264Error { .outOfRange("\(name)", value) }

    // MARK: SyntaxCoder

    @inlinable @inline(__always)
    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName) throws(H264Error) {
        value = T(truncatingIfNeeded: try readBits(bits))
    }

    @inlinable @inline(__always)
    mutating func u<T: FixedWidthInteger>(_ bits: Int, _ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let raw = try readBits(bits)
        guard let v = T(exactly: raw), range.contains(v) else { throw failure { Self.outOfRange(name, Int64(truncatingIfNeeded: raw)) } }
        value = v
    }

    @inlinable @inline(__always)
    mutating func ue<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let raw = try readUE()
        guard let v = T(exactly: raw), range.contains(v) else { throw failure { Self.outOfRange(name, Int64(raw)) } }
        value = v
    }

    @inlinable @inline(__always)
    mutating func se<T: FixedWidthInteger>(_ value: inout T, _ name: SyntaxName, _ range: ClosedRange<T>) throws(H264Error) {
        let raw = try readSE()
        guard let v = T(exactly: raw), range.contains(v) else { throw failure { Self.outOfRange(name, Int64(raw)) } }
        value = v
    }

    @inlinable @inline(__always)
    mutating func flag(_ value: inout Bool, _ name: SyntaxName) throws(H264Error) {
        guard position < bitCount else { throw failure { H264Error.truncated("needed 1 bit at bit \(position)") } }
        let byte = base.unsafelyUnwrapped.load(fromByteOffset: position &>> 3, as: UInt8.self)
        value = (byte &>> UInt8(7 &- (position & 7))) & 1 == 1
        position &+= 1  // < bitCount
    }

    /// The position of the `rbsp_stop_one_bit`: the last set bit, or nil when every bit is 0.
    @usableFromInline
    var rbspStopBitPosition: Int? {
        var i = byteCount
        while i > 0 {
            i &-= 1
            let b = base.unsafelyUnwrapped.load(fromByteOffset: i, as: UInt8.self)
            if b != 0 { return i &* 8 &+ 7 &- b.trailingZeroBitCount }
        }
        return nil
    }

    @inlinable
    mutating func moreRBSPData(writerAnswer: Bool) -> Bool {
        guard let stop = rbspStopBitPosition else { return false }
        return position < stop
    }

    @inlinable
    mutating func trailingBits() throws(H264Error) {
        var one = false
        try flag(&one, "rbsp_stop_one_bit")
        guard one else {
            throw failure { H264Error.invalid(.invalidTrailingBits, "rbsp_stop_one_bit is 0 at bit \(position &- 1)") }
        }
        while position & 7 != 0 {
            var zero = false
            try flag(&zero, "rbsp_alignment_zero_bit")
            if zero { throw failure { H264Error.invalid(.invalidTrailingBits, "rbsp_alignment_zero_bit is 1 at bit \(position &- 1)") } }
        }
    }

    @usableFromInline
    mutating func bytes(_ bytes: inout [UInt8], count: Int, _ name: SyntaxName) throws(H264Error) {
        guard count >= 0, count <= bitsRemaining / 8 else { throw failure { .truncated("\(name): \(count) bytes wanted") } }
        if position & 7 == 0 {
            let start = position &>> 3
            bytes = Array(UnsafeRawBufferPointer(start: base.unsafelyUnwrapped + start, count: count))  // start + count <= byteCount
        } else {
            var out = [UInt8]()
            out.reserveCapacity(count)
            for _ in 0..<count { out.append(UInt8(truncatingIfNeeded: peek(8))); position &+= 8 }
            bytes = out
            return
        }
        position &+= count &<< 3  // count * 8 <= bitsRemaining
    }

    /// Reads the bytes in one step: only a tracer needs one element per byte.
    @usableFromInline
    mutating func byteElements(_ bytes: inout [UInt8], count: Int, _ name: (Int) -> SyntaxName) throws(H264Error) {
        try self.bytes(&bytes, count: count, name(0))
    }

    @usableFromInline
    func peekBits(_ count: Int, skipping skip: Int) throws(H264Error) -> UInt32 {
        guard (0...32).contains(count) else { throw failure { .outOfRange("look-ahead bit count", Int64(count)) } }
        guard skip >= 0, skip <= bitsRemaining else { throw failure { .truncated("cannot skip \(skip) bits at bit \(position)") } }
        var r = self
        r.position &+= skip  // skip <= bitsRemaining
        return UInt32(truncatingIfNeeded: try r.readBits(count))
    }
}

extension ArraySlice where Element == UInt8 {
    /// Calls `body` with an ``UnsafeSyntaxReader`` at the first bit of these bytes, valid for the
    /// call only; rethrows its error.
    ///
    /// Bytes of a structure shorter than 24 (a PPS, a short slice's prefix) are read from a
    /// zero-padded copy on the stack, so that every element takes the 8-byte loads.
    @inlinable
    func withUnsafeSyntaxReader<R>(_ body: (inout UnsafeSyntaxReader) throws(H264Error) -> R) throws(H264Error) -> R {
        let result: Result<R, H264Error>
        if count < 24 {
            var padded: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: count + at least 8 zeros
            result = Swift.withUnsafeMutableBytes(of: &padded) { copy in
                withUnsafeBytes { raw in copy.copyMemory(from: raw) }  // count < 24 <= copy.count
                var reader = UnsafeSyntaxReader(UnsafeRawBufferPointer(rebasing: copy[0..<count]), padding: 32 &- count)
                do throws(H264Error) {
                    return .success(try body(&reader))
                } catch {
                    return .failure(error)
                }
            }
        } else {
            result = withUnsafeBytes { raw in
                var reader = UnsafeSyntaxReader(raw)
                do throws(H264Error) {
                    return .success(try body(&reader))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }
}
