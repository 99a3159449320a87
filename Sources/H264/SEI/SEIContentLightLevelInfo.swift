/// `content_light_level_info( payloadSize )`, ITU-T H.264 D.1.31 (payload type 144).
public struct SEIContentLightLevelInfo: Sendable, Hashable {
    /// `max_content_light_level`, cd/m².
    public var maxContentLightLevel: UInt16 = 0
    /// `max_pic_average_light_level`, cd/m².
    public var maxPicAverageLightLevel: UInt16 = 0

    /// Creates a content light level payload.
    public init(maxContentLightLevel: UInt16 = 0, maxPicAverageLightLevel: UInt16 = 0) {
        self.maxContentLightLevel = maxContentLightLevel
        self.maxPicAverageLightLevel = maxPicAverageLightLevel
    }

    /// Reads, writes or traces the payload (D.1.31).
    public mutating func code<C: SyntaxCoder>(_ c: inout C) throws(H264Error) {
        try c.u(16, &maxContentLightLevel, "max_content_light_level")
        try c.u(16, &maxPicAverageLightLevel, "max_pic_average_light_level")
    }
}
