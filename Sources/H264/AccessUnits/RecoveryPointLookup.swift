/// Finds the recovery point SEI (D.1.7) of an access unit.
enum RecoveryPointLookup {
    /// Only the recovery point payload is decoded; every other payload stays raw bytes.
    static let options: SEIParseOptions = {
        var o = SEIParseOptions.framingOnly
        o.keepAllPayloadsRaw = false
        o.rawPayloadTypes = Set((0...255).map { SEIPayloadType(rawValue: $0) }).subtracting([.recoveryPoint])
        return o
    }()

    /// `recovery_frame_cnt` of the first recovery point SEI message in `unit`, if any: what the
    /// SEI parse with ``options`` finds (nil when that parse fails), without it.
    ///
    /// The message headers are read first, on the bytes as carried: an SEI NAL unit without a
    /// recovery point message (the usual case: buffering period, picture timing, user data)
    /// costs one walk over them. Otherwise the messages are walked as the parse frames them,
    /// on the fly over the escaped bytes, and each recovery point payload is read through
    /// ``SEIRecoveryPoint/code(_:)`` from a copy of its first bytes on the stack: no SEI
    /// message list, no payload bytes kept, no allocation. No parameter set is needed: a
    /// recovery point depends on none.
    /// - Complexity: O(n) in the NAL unit's size.
    static func recoveryFrameCount(in unit: NALUnit) -> Int? {
        guard unit.type == .sei, mayHoldRecoveryPoint(unit.payload) else { return nil }
        return recoveryFrameCount(ebsp: unit.payload)
    }

    /// The recovery point lookup over the payload (after the NAL unit header) of an SEI NAL
    /// unit, as ``SEI/parse(_:context:options:)`` with ``options`` reads it: the messages
    /// (type and size runs, each payload within the RBSP without its trailing zero bytes, at
    /// most ``SEIParseOptions/maxMessages``), recovery point payloads through their syntax and
    /// their D.1 trailer (a 1 bit in the payload's last bits), then `rbsp_trailing_bits()`.
    static func recoveryFrameCount(ebsp: ArraySlice<UInt8>) -> Int? {
        // The RBSP the parse reads ends at its last nonzero byte.
        var scan = EmulationPrevention.RBSPCursor(ebsp)
        var length = 0
        var lastByte: UInt8 = 0
        while let b = scan.next() {
            if b != 0 {
                length = scan.count
                lastByte = b
            }
        }
        let maxMessages = options.maxMessages
        var c = EmulationPrevention.RBSPCursor(ebsp)
        var messages = 0
        var found: Int?
        repeat {
            guard messages < maxMessages, let type = c.ffRun(within: length), let size = c.ffRun(within: length),
                  size <= length &- c.count else { return nil }
            if type == SEIPayloadType.recoveryPoint.rawValue {
                guard let count = recoveryPoint(&c, size: size) else { return nil }
                if found == nil { found = count }
            } else {
                for _ in 0..<size { _ = c.next() }  // within `length`: checked above
            }
            messages &+= 1
        } while c.count < length &- 1 || (c.count == length &- 1 && lastByte != 0x80)  // more_rbsp_data()
        // rbsp_trailing_bits(): the stop bit is the last byte's first bit, 0x80.
        return c.count == length &- 1 && lastByte == 0x80 ? found : nil
    }

    /// Reads the recovery point payload of `size` bytes (all there) at `c`, moving past it:
    /// `recovery_frame_cnt`, or nil when the payload or its trailer is invalid.
    private static func recoveryPoint(_ c: inout EmulationPrevention.RBSPCursor, size: Int) -> Int? {
        // A recovery point reads at most 67 bits (a 63-bit ue(v) and 4 bits): 16 bytes hold
        // them; the rest of the payload matters only through its last byte (the trailer).
        var copy: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 16 bytes and zero padding
        let copied = Swift.min(size, 16)
        var last: UInt8 = 0
        withUnsafeMutableBytes(of: &copy) { raw in
            for i in 0..<size {
                let b = c.next() ?? 0  // within the RBSP: checked by the caller
                if i < copied { raw[i] = b }
                last = b
            }
        }
        let limit = size &* 8  // size <= the NAL unit's size
        let read: (count: Int, end: Int)? = withUnsafeBytes(of: &copy) { raw in
            var coder = BoundedSyntaxCoder(UnsafeSyntaxReader(UnsafeRawBufferPointer(rebasing: raw[0..<copied]), padding: 32 &- copied),
                                           limit: limit)
            var point = SEIRecoveryPoint()
            do throws(H264Error) {
                try point.code(&coder)
            } catch {
                return nil
            }
            return (Int(point.recoveryFrameCount), coder.bitPosition)
        }
        guard let read else { return nil }
        // The trailer (SEIPayloadTrailer), when bits are left: the last of them (at most 8, the
        // low bits of the last byte) must hold bit_equal_to_one.
        let left = limit &- read.end
        if left > 0 {
            let mask = UInt8(truncatingIfNeeded: (1 &<< Swift.min(left, 8)) &- 1)
            guard last & mask != 0 else { return nil }
        }
        return read.count
    }

    /// False when the `sei_message()` headers (7.3.2.3.1) of an SEI RBSP carried as `ebsp` show
    /// no recovery point (payload type 6) before they end or stop making sense; true otherwise
    /// (the full parse decides).
    /// - Complexity: O(number of messages + emulation-prevention bytes skipped), no allocation.
    static func mayHoldRecoveryPoint(_ ebsp: ArraySlice<UInt8>) -> Bool {
        var c = EmulationPrevention.RBSPCursor(ebsp)
        while c.index < ebsp.endIndex {
            // rbsp_trailing_bits: the stop bit 0x80 with nothing after it but zero bytes.
            if ebsp[c.index] == 0x80 && ebsp[(c.index &+ 1)...].allSatisfy({ $0 == 0 }) { return false }
            guard let type = c.ffRun(within: .max) else { return false }
            if type == SEIPayloadType.recoveryPoint.rawValue { return true }
            guard var size = c.ffRun(within: .max) else { return false }
            // Skip the payload: RBSP bytes, counted past emulation-prevention bytes.
            while size > 0 {
                guard c.next() != nil else { return false }
                size &-= 1
            }
        }
        return false
    }
}

extension EmulationPrevention.RBSPCursor {
    /// An SEI payload type or size (0xFF bytes, then the last byte, 7.3.2.3.1) within the first
    /// `length` RBSP bytes, or nil when they end first.
    fileprivate mutating func ffRun(within length: Int) -> Int? {
        var v = 0
        while let b = next(within: length) {
            v &+= Int(b)  // at most 255 per byte of the NAL unit: no overflow
            if b != 0xFF { return v }
        }
        return nil
    }
}
