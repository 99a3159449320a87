extension SEIInsertionSchedule {
    /// Adds a message described in text (the form `h264 edit --insert-sei` takes), on the frames
    /// after `@` (a ``FrameSet``; every frame without one):
    ///
    /// - `user-data-unregistered:UUID:HEX[@FRAMES]`: a 16-byte UUID (32 hex digits, dashes
    ///   allowed) and payload bytes in hex (may be empty);
    /// - `user-data-registered:HEX[@FRAMES]`: `itu_t_t35_country_code` (with its extension
    ///   byte after 0xFF) and the payload bytes, in hex;
    /// - `recovery-point:N[@FRAMES]`: a recovery point with `recovery_frame_cnt` N (without
    ///   frames: on every I picture that is not an IDR picture, see ``recoveryPoints``).
    ///
    /// - Throws: ``H264Error/Code/invalidArgument`` for anything else.
    public mutating func add(parsing spec: String) throws(H264Error) {
        var body = Substring(spec)
        var frames: FrameSet? = nil
        if let at = body.lastIndex(of: "@") {
            frames = try FrameSet(parsing: String(body[body.index(after: at)...]))
            body = body[..<at]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        func bad(_ why: String) -> H264Error {
            H264Error.invalid(.invalidArgument, "SEI message '\(spec.prefix(80))': \(why)")
        }
        switch parts.first {
        case "user-data-unregistered":
            guard parts.count == 3 else { throw bad("expected user-data-unregistered:UUID:HEX") }
            guard let uuid = Self.hexBytes(parts[1].filter { $0 != "-" }[...]), uuid.count == 16 else { throw bad("the UUID is 32 hex digits") }
            guard let payload = Self.hexBytes(parts[2]) else { throw bad("the payload is hex bytes") }
            add(try .userDataUnregistered(uuid: uuid, payload: payload), on: frames ?? .all)
        case "user-data-registered":
            guard parts.count == 2, let bytes = Self.hexBytes(parts[1]), let country = bytes.first else {
                throw bad("expected user-data-registered:HEX (country code first)")
            }
            var rest = bytes.dropFirst()
            var extensionByte: UInt8 = 0
            if country == 0xFF {
                guard let e = rest.first else { throw bad("country code 0xFF needs its extension byte") }
                extensionByte = e
                rest = rest.dropFirst()
            }
            add(SEIMessage(.userDataRegistered(SEIUserDataRegistered(countryCode: country, countryCodeExtension: extensionByte, payload: Array(rest)))),
                on: frames ?? .all)
        case "recovery-point":
            guard parts.count == 2, parts[1].count <= 5, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let n = UInt16(parts[1]) else {
                throw bad("expected recovery-point:N with N in 0...65535")
            }
            recoveryPoints = RecoveryPoints(recoveryFrameCount: n, frames: frames)
        default:
            throw bad("the kinds are user-data-unregistered, user-data-registered and recovery-point")
        }
    }

    /// Bytes written as hex digits (whitespace allowed between them); nil for anything else or
    /// an odd number of digits.
    static func hexBytes(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var pending: UInt8? = nil
        for ch in text.utf8 {
            if ch == 0x20 || ch == 0x09 || ch == 0x0D { continue }
            guard let v = hexValue(ch) else { return nil }
            if let high = pending { bytes.append(high << 4 | v); pending = nil } else { pending = v }
        }
        return pending == nil ? bytes : nil
    }
}
