/// The compression function of a hash built as MD5 and SHA-256 are (the Merkle–Damgård
/// construction): a state updated by each 64-byte block of the padded message.
protocol BlockCompression: Sendable {
    /// The padding's length field (the message length in bits, 64 bits) is big-endian
    /// (SHA-256, FIPS 180-4 5.1.1), else little-endian (MD5, RFC 1321 3.2).
    static var lengthIsBigEndian: Bool { get }
    /// Updates the state with the 64-byte block at `block`.
    mutating func compress(_ block: UnsafeRawPointer)
}

/// The part that MD5 and SHA-256 share: the message, in pieces of any size, cut into 64-byte
/// blocks for the hash's compression function, and at the end the padding (a 1 bit, zeros, and
/// the length in bits so that the length field ends a block: RFC 1321 3.1 and 3.2, FIPS 180-4
/// 5.1.1) and the last blocks.
///
/// Memory: the state, the byte count and one 64-byte block buffer (allocated once, at
/// creation); a block is compressed in place from the caller's bytes or the buffer, so hashing
/// allocates nothing per block.
struct BlockHasher<State: BlockCompression>: Sendable {
    /// The hash's state: its final value once ``finish()`` has run.
    private(set) var state: State
    /// Message bytes hashed so far (the length field counts bits modulo 2^64, as both standards
    /// do for messages below 2^64 bits).
    private var length: UInt64 = 0
    /// Bytes of a block not yet complete, in `buffer[0..<buffered]`.
    private var buffer = [UInt8](repeating: 0, count: 64)
    private var buffered = 0

    /// A hasher starting from the hash's initial `state`.
    init(_ state: State) { self.state = state }

    /// Adds `bytes` to the message.
    /// - Complexity: O(n); contiguous collections (arrays, slices) are read in place, others a
    ///   byte at a time.
    mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done != nil { return }
        for byte in bytes {
            buffer[buffered] = byte
            buffered &+= 1  // below 64: a full buffer is compressed at once
            if buffered == 64 { compressBuffer() }
        }
        length &+= UInt64(bytes.count)  // wraps only beyond 2^64 bytes, as the standards' bit count does
    }

    private mutating func update(_ input: UnsafeRawBufferPointer) {
        guard var base = input.baseAddress else { return }
        var left = input.count
        length &+= UInt64(left)  // wraps only beyond 2^64 bytes
        if buffered > 0 {
            let take = min(64 &- buffered, left)  // buffered < 64
            buffer.withUnsafeMutableBytes { dst in
                (dst.baseAddress! + buffered).copyMemory(from: base, byteCount: take)
            }
            buffered &+= take  // at most 64
            base += take
            left &-= take  // take <= left
            guard buffered == 64 else { return }
            compressBuffer()
        }
        while left >= 64 {
            state.compress(UnsafeRawPointer(base))
            base += 64
            left &-= 64  // left >= 64
        }
        if left > 0 {
            buffer.withUnsafeMutableBytes { dst in dst.baseAddress!.copyMemory(from: base, byteCount: left) }
            buffered = left
        }
    }

    private mutating func compressBuffer() {
        buffer.withUnsafeBytes { state.compress($0.baseAddress!) }
        buffered = 0
    }

    /// Pads the message given so far and compresses its last blocks: ``state`` is then the
    /// hash's final value.
    mutating func finish() {
        let bits = length &<< 3  // the length in bits, modulo 2^64
        var padding: [UInt8] = [0x80]
        // Zeros so that the length field ends a block: (buffered + 1 + zeros + 8) % 64 == 0.
        let zeros = (64 &+ 56 &- (buffered &+ 1) % 64) % 64  // buffered + 1 <= 64
        padding.append(contentsOf: repeatElement(0, count: zeros))
        if State.lengthIsBigEndian {
            padding.writeInteger(bits)
        } else {
            padding.writeInteger(bits.byteSwapped)
        }
        padding.withUnsafeBytes { update($0) }
    }
}
