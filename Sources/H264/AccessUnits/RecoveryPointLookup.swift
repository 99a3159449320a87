/// Finds the recovery point SEI (D.1.7) of an access unit.
enum RecoveryPointLookup {
    /// Only the recovery point payload is decoded; every other payload stays raw bytes.
    static let options: SEIParseOptions = {
        var o = SEIParseOptions.framingOnly
        o.keepAllPayloadsRaw = false
        o.rawPayloadTypes = Set((0...255).map { SEIPayloadType(rawValue: $0) }).subtracting([.recoveryPoint])
        return o
    }()

    /// `recovery_frame_cnt` of the first recovery point SEI message in `unit`, if any.
    ///
    /// The message headers are read first, on the bytes as carried: an SEI NAL unit without a
    /// recovery point message (the usual case: buffering period, picture timing, user data) is
    /// not parsed, and costs no allocation.
    static func recoveryFrameCount(in unit: NALUnit, context: some SyntaxContext) -> Int? {
        guard unit.type == .sei, mayHoldRecoveryPoint(unit.payload),
              let sei = try? SEI.parse(unit, context: context, options: options) else { return nil }
        for message in sei.messages {
            if case .recoveryPoint(let point) = message.payload { return Int(point.recoveryFrameCount) }
        }
        return nil
    }

    /// False when the `sei_message()` headers (7.3.2.3.1) of an SEI RBSP carried as `ebsp` show
    /// no recovery point (payload type 6) before they end or stop making sense; true otherwise
    /// (the full parse decides).
    /// - Complexity: O(number of messages + emulation-prevention bytes skipped), no allocation.
    static func mayHoldRecoveryPoint(_ ebsp: ArraySlice<UInt8>) -> Bool {
        var i = ebsp.startIndex
        let end = ebsp.endIndex
        var zeros = 0
        /// The next RBSP byte (emulation-prevention bytes skipped), or nil at the end.
        func next() -> UInt8? {
            while i < end {
                let b = ebsp[i]
                i &+= 1
                if zeros >= 2 && b == 3 {
                    zeros = 0
                    continue
                }
                zeros = b == 0 ? zeros &+ 1 : 0
                return b
            }
            return nil
        }
        /// A payload type or size: 0xFF bytes, then the last byte (bounded by the NAL unit).
        func value() -> Int? {
            var v = 0
            while let b = next() {
                v &+= Int(b)  // at most 255 per byte of the NAL unit: no overflow
                if b != 0xFF { return v }
            }
            return nil
        }
        while i < end {
            // rbsp_trailing_bits: the stop bit 0x80 with nothing after it but zero bytes.
            if ebsp[i] == 0x80 && ebsp[ebsp.index(after: i)...].allSatisfy({ $0 == 0 }) { return false }
            guard let type = value() else { return false }
            if type == 6 { return true }
            guard var size = value() else { return false }
            // Skip the payload: RBSP bytes, counted past emulation-prevention bytes.
            while size > 0 {
                guard next() != nil else { return false }
                size &-= 1
            }
        }
        return false
    }
}
