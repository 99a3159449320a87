/// `user_data_registered_itu_t_t35( payloadSize )`, ITU-T H.264 D.1.6 (payload type 4).
///
/// Traced as FFmpeg does: the payload bytes are numbered from the byte after the country code
/// (and its extension byte), so the first is `itu_t_t35_payload_byte[1]` or `[2]`.
public struct SEIUserDataRegistered: Sendable, Hashable {
    /// `itu_t_t35_country_code`.
    public var countryCode: UInt8 = 0
    /// `itu_t_t35_country_code_extension_byte`, coded when the country code is `0xFF`.
    public var countryCodeExtension: UInt8 = 0
    /// The `itu_t_t35_payload_byte`s.
    public var payload: [UInt8] = []

    /// Creates a registered user data payload.
    public init(countryCode: UInt8 = 0, countryCodeExtension: UInt8 = 0, payload: [UInt8] = []) {
        self.countryCode = countryCode
        self.countryCodeExtension = countryCodeExtension
        self.payload = payload
    }

    /// Reads, writes or traces the payload.
    /// - Parameters:
    ///   - c: the coder that reads, writes or traces the payload.
    ///   - payloadSize: the message's size (reading).
    /// - Throws: ``H264Error/Code/truncated`` when the payload is shorter than its country code.
    public mutating func code<C: SyntaxCoder>(_ c: inout C, payloadSize: Int) throws(H264Error) {
        try c.u(8, &countryCode, "itu_t_t35_country_code")
        var header = 1
        if countryCode == 0xFF {
            try c.u(8, &countryCodeExtension, "itu_t_t35_country_code_extension_byte")
            header = 2
        }
        let count = c.isReading ? payloadSize &- header : payload.count  // payloadSize >= header: both bytes were read
        try c.byteElements(&payload, count: count) { SyntaxName("itu_t_t35_payload_byte", $0 &+ header) }
    }
}
