/// `user_data_unregistered( payloadSize )`, ITU-T H.264 D.1.7 (payload type 5): a 16-byte
/// UUID (ISO/IEC 11578) and bytes whose meaning the UUID names. x264 writes its version and
/// settings here as text.
public struct SEIUserDataUnregistered: Sendable, Hashable {
    /// `uuid_iso_iec_11578`, 16 bytes.
    public var uuid: [UInt8]
    /// The `user_data_payload_byte`s.
    public var payload: [UInt8]

    /// Creates an unregistered user data payload; `uuid` must hold 16 bytes to be written.
    public init(uuid: [UInt8] = Array(repeating: 0, count: 16), payload: [UInt8] = []) {
        self.uuid = uuid
        self.payload = payload
    }

    /// The UUID of x264's settings message, `dc45e9bd-e6d9-48b7-962c-d820d923eeef`.
    public static let x264UUID: [UInt8] = [0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7,
                                           0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF]

    /// The payload as text when every byte is printable ASCII or a trailing NUL (x264's
    /// settings string), else nil.
    public var text: String? {
        var bytes = payload[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x0A }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads, writes or traces the payload.
    /// - Parameters:
    ///   - c: the coder that reads, writes or traces the payload.
    ///   - payloadSize: the message's size (reading).
    /// - Throws: ``H264Error/Code/truncated`` when the payload is shorter than 16 bytes.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, payloadSize: Int) throws(H264Error) {
        if c.isReading {
            guard payloadSize >= 16 else { throw .truncated("user_data_unregistered of \(payloadSize) bytes has no 16-byte UUID") }
        }
        try c.byteElements(&uuid, count: 16) { SyntaxName("uuid_iso_iec_11578", $0) }
        let count = c.isReading ? payloadSize &- 16 : payload.count  // payloadSize >= 16 checked above
        try c.byteElements(&payload, count: count) { SyntaxName("user_data_payload_byte", $0) }
    }
}
