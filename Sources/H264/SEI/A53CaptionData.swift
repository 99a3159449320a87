/// Closed captions as ATSC A/53 Part 4 carries them in H.264: `cc_data()` inside a
/// `user_data_registered_itu_t_t35` SEI message (ANSI/SCTE 128, ATSC A/72), one per picture.
///
/// The registered payload is `itu_t_t35_country_code` 0xB5 (United States), then
/// `itu_t_t35_provider_code` 0x0031 (ATSC), `user_identifier` "GA94", `user_data_type_code`
/// 0x03 and `cc_data()`:
///
/// ```
/// reserved (1) '1'  process_cc_data_flag (1)  zero_bit (1)  cc_count (5)
/// em_data (8)
/// for i in 0..<cc_count: marker_bits (5) '11111'  cc_valid (1)  cc_type (2)  cc_data_1 (8)  cc_data_2 (8)
/// marker_bits (8) '11111111'
/// ```
///
/// Each construct carries two bytes of CEA-608 (line 21 field 1 or 2, `cc_type` 0 or 1) or of a
/// CEA-708 DTVCC packet (`cc_type` 2 and 3). FFmpeg exports the constructs of a picture as its
/// "ATSC A53 Part 4 Closed Captions" frame side data.
///
/// ```swift
/// let captions = A53CaptionData(constructs: [.init(type: .ntscField1, data1: 0x94, data2: 0x2C)])
/// let message = SEIMessage(.userDataRegistered(SEIUserDataRegistered(captions: captions)))
/// ```
public struct A53CaptionData: Sendable, Hashable {
    /// `cc_type`: which caption channel a construct belongs to.
    public enum CCType: UInt8, Sendable, Hashable, CaseIterable {
        /// 0: CEA-608 line 21 field 1 (CC1, CC2, T1, T2).
        case ntscField1 = 0
        /// 1: CEA-608 line 21 field 2 (CC3, CC4, T3, T4, XDS).
        case ntscField2 = 1
        /// 2: CEA-708 DTVCC packet data.
        case dtvccPacketData = 2
        /// 3: CEA-708 DTVCC packet start.
        case dtvccPacketStart = 3
    }

    /// One `cc_valid` / `cc_type` / `cc_data_1` / `cc_data_2` construct.
    public struct Construct: Sendable, Hashable {
        /// `cc_valid`: the two bytes carry data (false for padding).
        public var valid: Bool
        /// `cc_type`.
        public var type: CCType
        /// `cc_data_1`: for CEA-608, the first character or control byte with its odd parity bit.
        public var data1: UInt8
        /// `cc_data_2`.
        public var data2: UInt8

        /// Creates a construct.
        public init(valid: Bool = true, type: CCType, data1: UInt8, data2: UInt8) {
            self.valid = valid
            self.type = type
            self.data1 = data1
            self.data2 = data2
        }

        /// The construct as three bytes: `0xF8 | cc_valid << 2 | cc_type`, `cc_data_1`,
        /// `cc_data_2`: what FFmpeg's side data holds per construct.
        public var bytes: [UInt8] { [0xF8 | (valid ? 4 : 0) | type.rawValue, data1, data2] }
    }

    /// The most constructs one `cc_data()` holds (`cc_count` is 5 bits).
    public static let maximumConstructCount = 31
    /// `itu_t_t35_country_code` of ATSC user data: 0xB5, United States.
    public static let countryCode: UInt8 = 0xB5
    /// `itu_t_t35_provider_code` of ATSC: 0x0031.
    public static let providerCode: UInt16 = 0x0031
    /// `user_identifier` of ATSC A/53 user data: "GA94".
    public static let userIdentifier: UInt32 = 0x4741_3934
    /// `user_data_type_code` of `cc_data()`: 0x03.
    public static let userDataTypeCode: UInt8 = 0x03

    /// `process_cc_data_flag`: the constructs are to be processed (FFmpeg ignores the data
    /// without it).
    public var processCCData: Bool
    /// The bit after `process_cc_data_flag` (`zero_bit` in ATSC A/53, `additional_data_flag` in
    /// older texts); written as read.
    public var additionalData: Bool
    /// `em_data` (0xFF when unused).
    public var emData: UInt8
    /// The constructs (at most ``maximumConstructCount``): `cc_count` is their number.
    public var constructs: [Construct]

    /// Creates caption data.
    public init(constructs: [Construct], processCCData: Bool = true, additionalData: Bool = false, emData: UInt8 = 0xFF) {
        self.constructs = constructs
        self.processCCData = processCCData
        self.additionalData = additionalData
        self.emData = emData
    }

    /// Creates caption data from constructs as three bytes each (``Construct/bytes``, the form
    /// of FFmpeg's side data and of caption files): the first byte's low three bits are
    /// `cc_valid` and `cc_type`, its marker bits are ignored.
    /// - Throws: ``H264Error/Code/invalidArgument`` when the count is not a multiple of 3 or
    ///   there are more than ``maximumConstructCount`` constructs.
    public init(tripleBytes: [UInt8]) throws(H264Error) {
        guard tripleBytes.count % 3 == 0, tripleBytes.count / 3 <= Self.maximumConstructCount else {
            throw H264Error.invalid(.invalidArgument,
                "cc_data needs whole 3-byte constructs, at most \(Self.maximumConstructCount), got \(tripleBytes.count) bytes")
        }
        var constructs: [Construct] = []
        var i = tripleBytes.startIndex
        while i < tripleBytes.endIndex {
            let head = tripleBytes[i]
            constructs.append(Construct(valid: head & 4 != 0, type: CCType(rawValue: head & 3)!,  // two bits: always a case
                                        data1: tripleBytes[i &+ 1], data2: tripleBytes[i &+ 2]))
            i &+= 3  // below count, a multiple of 3
        }
        self.init(constructs: constructs)
    }

    /// Reads, writes or traces `cc_data()` (ATSC A/53 Part 4, 6.2.3).
    ///
    /// Marker and reserved bits are written as ones and, as FFmpeg does, not checked when read.
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for more than 31 constructs (writing);
    ///   reading errors of the coder.
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        var reserved: UInt8 = 1
        try c.u(1, &reserved, "reserved_one_bit")
        try c.flag(&processCCData, "process_cc_data_flag")
        try c.flag(&additionalData, "zero_bit")
        var count = UInt8(truncatingIfNeeded: constructs.count)
        if !c.isReading, constructs.count > Self.maximumConstructCount {
            throw .outOfRange("cc_count", Int64(constructs.count))
        }
        try c.u(5, &count, "cc_count")
        try c.u(8, &emData, "em_data")
        if c.isReading { constructs = Array(repeating: Construct(type: .ntscField1, data1: 0, data2: 0), count: Int(count)) }
        for i in 0..<Int(count) {
            var marker: UInt8 = 0x1F
            try c.u(5, &marker, SyntaxName("marker_bits", i))
            try c.flag(&constructs[i].valid, SyntaxName("cc_valid", i))
            var type = constructs[i].type.rawValue
            try c.u(2, &type, SyntaxName("cc_type", i))
            constructs[i].type = CCType(rawValue: type)!  // two bits: always a case
            try c.u(8, &constructs[i].data1, SyntaxName("cc_data_1", i))
            try c.u(8, &constructs[i].data2, SyntaxName("cc_data_2", i))
        }
        var marker: UInt8 = 0xFF
        try c.u(8, &marker, "marker_bits")
    }

    /// Reads, writes or traces the ATSC payload of a registered user data message after its
    /// country code: `itu_t_t35_provider_code`, `user_identifier`, `user_data_type_code`, then
    /// ``code(_:)``.
    /// - Throws: ``H264Error/Code/invalidArgument`` when reading a provider, identifier or type
    ///   code other than ATSC's caption data; the errors of ``code(_:)``.
    public mutating func codeATSCUserData<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        var provider = Self.providerCode
        try c.u(16, &provider, "itu_t_t35_provider_code")
        var identifier = Self.userIdentifier
        try c.u(32, &identifier, "user_identifier")
        var typeCode = Self.userDataTypeCode
        try c.u(8, &typeCode, "user_data_type_code")
        guard provider == Self.providerCode, identifier == Self.userIdentifier, typeCode == Self.userDataTypeCode else {
            throw H264Error.invalid(.invalidArgument, "not ATSC A/53 cc_data (provider \(provider), identifier \(identifier), type \(typeCode))")
        }
        try code(&c)
    }

    /// CEA-608 bytes with odd parity in bit 7 (the form `cc_data_1` and `cc_data_2` carry):
    /// the low seven bits of `byte`, and bit 7 set when they hold an even number of ones.
    public static func withOddParity(_ byte: UInt8) -> UInt8 {
        let low = byte & 0x7F
        return low.nonzeroBitCount & 1 == 0 ? low | 0x80 : low
    }
}

extension SEIUserDataRegistered {
    /// A registered user data payload carrying `captions` the ATSC way (country code 0xB5,
    /// provider 0x0031, "GA94", type code 3).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for more than 31 constructs.
    public init(captions: A53CaptionData) throws(H264Error) {
        var w = SyntaxWriter()
        var data = captions
        try data.codeATSCUserData(&w)  // whole bytes: 7 + 2 + 3 × cc_count + 1
        self.init(countryCode: A53CaptionData.countryCode, payload: w.writer.bytes)
    }

    /// The captions this payload carries, when it is ATSC A/53 `cc_data()` (country code 0xB5,
    /// provider 0x0031, "GA94", type code 3, enough bytes for `cc_count`); nil otherwise.
    /// Bytes after the final marker byte are ignored, as FFmpeg ignores them.
    /// - Complexity: O(payload size).
    public var captions: A53CaptionData? {
        guard countryCode == A53CaptionData.countryCode else { return nil }
        var r = SyntaxReader(payload[...])
        var data = A53CaptionData(constructs: [])
        do throws(H264Error) {
            try data.codeATSCUserData(&r)
        } catch {
            return nil
        }
        return data
    }
}

extension SEIMessage {
    /// A `user_data_registered_itu_t_t35` message carrying `captions` (ATSC A/53 Part 4).
    /// - Throws: ``H264Error/Code/valueOutOfRange`` for more than 31 constructs.
    public static func captions(_ captions: A53CaptionData) throws(H264Error) -> SEIMessage {
        SEIMessage(.userDataRegistered(try SEIUserDataRegistered(captions: captions)))
    }

    /// A `user_data_unregistered` message: a 16-byte UUID and the bytes it names.
    /// - Throws: ``H264Error/Code/invalidArgument`` when `uuid` is not 16 bytes.
    public static func userDataUnregistered(uuid: [UInt8], payload: [UInt8]) throws(H264Error) -> SEIMessage {
        guard uuid.count == 16 else { throw H264Error.invalid(.invalidArgument, "a UUID has 16 bytes, got \(uuid.count)") }
        return SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(uuid: uuid, payload: payload)))
    }

    /// A `recovery_point` message: decoding that starts at this picture is correct in output
    /// order after `recoveryFrameCount` frames (0: at once), as intra-refresh streams need at
    /// the start of each refresh.
    public static func recoveryPoint(frames recoveryFrameCount: UInt16, exactMatch: Bool = false, brokenLink: Bool = false) -> SEIMessage {
        SEIMessage(.recoveryPoint(SEIRecoveryPoint(recoveryFrameCount: recoveryFrameCount, exactMatch: exactMatch, brokenLink: brokenLink)))
    }
}
