/// `payloadType` of an SEI message (ITU-T H.264 Table D-1 / 7.3.2.3.1).
///
/// A struct rather than an enum: any value an input carries is representable; the named
/// constants cover the payloads this library parses.
public struct SEIPayloadType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The payload type value (the sum of the 0xFF bytes and `last_payload_type_byte`).
    public let rawValue: Int

    /// Creates a payload type.
    @inlinable public init(rawValue: Int) { self.rawValue = rawValue }
    /// Creates a payload type.
    @inlinable public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// `buffering_period` (D.1.2).
    public static let bufferingPeriod = SEIPayloadType(0)
    /// `pic_timing` (D.1.3).
    public static let picTiming = SEIPayloadType(1)
    /// `pan_scan_rect` (D.1.4).
    public static let panScanRect = SEIPayloadType(2)
    /// `filler_payload` (D.1.5).
    public static let fillerPayload = SEIPayloadType(3)
    /// `user_data_registered_itu_t_t35` (D.1.6).
    public static let userDataRegistered = SEIPayloadType(4)
    /// `user_data_unregistered` (D.1.7).
    public static let userDataUnregistered = SEIPayloadType(5)
    /// `recovery_point` (D.1.8).
    public static let recoveryPoint = SEIPayloadType(6)
    /// `dec_ref_pic_marking_repetition` (D.1.9).
    public static let decRefPicMarkingRepetition = SEIPayloadType(7)
    /// `frame_packing_arrangement` (D.1.26).
    public static let framePackingArrangement = SEIPayloadType(45)
    /// `display_orientation` (D.1.27).
    public static let displayOrientation = SEIPayloadType(47)
    /// `mastering_display_colour_volume` (D.1.29).
    public static let masteringDisplayColourVolume = SEIPayloadType(137)
    /// `content_light_level_info` (D.1.31).
    public static let contentLightLevelInfo = SEIPayloadType(144)
    /// `alternative_transfer_characteristics` (D.1.32).
    public static let alternativeTransferCharacteristics = SEIPayloadType(147)

    /// The payload types this library parses, with their specification names.
    public static let named: [(SEIPayloadType, String)] = [
        (.bufferingPeriod, "buffering_period"),
        (.picTiming, "pic_timing"),
        (.panScanRect, "pan_scan_rect"),
        (.fillerPayload, "filler_payload"),
        (.userDataRegistered, "user_data_registered_itu_t_t35"),
        (.userDataUnregistered, "user_data_unregistered"),
        (.recoveryPoint, "recovery_point"),
        (.decRefPicMarkingRepetition, "dec_ref_pic_marking_repetition"),
        (.framePackingArrangement, "frame_packing_arrangement"),
        (.displayOrientation, "display_orientation"),
        (.masteringDisplayColourVolume, "mastering_display_colour_volume"),
        (.contentLightLevelInfo, "content_light_level_info"),
        (.alternativeTransferCharacteristics, "alternative_transfer_characteristics"),
    ]

    /// The type named `name`: a specification name (`user_data_unregistered`) or a number.
    /// Returns nil for anything else.
    public init?(name: String) {
        if let found = SEIPayloadType.named.first(where: { $0.1 == name }) {
            self = found.0
        } else if let n = Int(name), n >= 0 {
            self.init(n)
        } else {
            return nil
        }
    }

    /// The specification name (`user_data_unregistered`), or nil for types not listed in ``named``.
    public var name: String? { SEIPayloadType.named.first(where: { $0.0 == self })?.1 }

    public var description: String { name ?? "payload_type_\(rawValue)" }

    public static func < (lhs: SEIPayloadType, rhs: SEIPayloadType) -> Bool { lhs.rawValue < rhs.rawValue }
}
