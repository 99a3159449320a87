import H264

/// The `onMetaData` script data of an FLV file (or of an RTMP `@setDataFrame`): what players
/// read before the first frame.
public struct FLVMetadata: Hashable, Sendable {
    /// `width` in pixels.
    public var width: Int?
    /// `height` in pixels.
    public var height: Int?
    /// `framerate` in frames per second.
    public var frameRate: Double?
    /// `duration` in seconds, when known.
    public var duration: Double?
    /// `videodatarate` in kilobits per second, when known.
    public var videoDataRate: Double?
    /// `encoder`: the name of the writing software.
    public var encoder: String?
    /// Further properties, written after the ones above.
    public var extra: [AMF0Property]

    /// Creates metadata; `videocodecid` is always 7 (AVC).
    public init(width: Int? = nil, height: Int? = nil, frameRate: Double? = nil, duration: Double? = nil,
                videoDataRate: Double? = nil, encoder: String? = nil, extra: [AMF0Property] = []) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.duration = duration
        self.videoDataRate = videoDataRate
        self.encoder = encoder
        self.extra = extra
    }

    /// Reads the known properties of an `onMetaData` object or ECMA array; the rest go to
    /// ``extra``.
    public init(_ value: AMF0Value) {
        self.init()
        switch value {
        case .object(let props), .ecmaArray(let props): assign(props)
        default: break
        }
    }

    private mutating func assign(_ props: [AMF0Property]) {
        for p in props {
            switch p.name {
            case "width": width = p.value.number.flatMap { Int(exactly: $0.rounded()) }
            case "height": height = p.value.number.flatMap { Int(exactly: $0.rounded()) }
            case "framerate": frameRate = p.value.number
            case "duration": duration = p.value.number
            case "videodatarate": videoDataRate = p.value.number
            case "encoder": encoder = p.value.string
            case "videocodecid": break
            default: extra.append(p)
            }
        }
    }

    /// The properties as an AMF0 ECMA array.
    public var ecmaArray: AMF0Value {
        var props: [AMF0Property] = []
        if let duration { props.append(AMF0Property("duration", .number(duration))) }
        if let width { props.append(AMF0Property("width", .number(Double(width)))) }
        if let height { props.append(AMF0Property("height", .number(Double(height)))) }
        if let videoDataRate { props.append(AMF0Property("videodatarate", .number(videoDataRate))) }
        if let frameRate { props.append(AMF0Property("framerate", .number(frameRate))) }
        props.append(AMF0Property("videocodecid", .number(Double(FLVVideoPacket.avcCodecID))))
        if let encoder { props.append(AMF0Property("encoder", .string(encoder))) }
        props += extra
        return .ecmaArray(props)
    }

    /// The body of an FLV script tag: the string `onMetaData` and the ECMA array.
    public var scriptTagBody: [UInt8] { AMF0.encode([.string("onMetaData"), ecmaArray]) }
}

extension FLVMetadata {
    /// `onMetaData` for a stream an avcC record describes (an MP4 track's sample description,
    /// an FLV or RTMP sequence header): `width` and `height` from the record's first SPS that
    /// parses (cropped), `framerate` from its VUI timing when present, and the `duration` when
    /// the caller knows it (an MP4 track's).
    ///
    /// FLV does not read MP4 and MP4 does not write FLV: what a container knows of a track goes
    /// through the core's types (the record, a `Duration`), and the metadata is built here.
    /// - Parameters:
    ///   - record: the decoder configuration; nil gives metadata without size or rate.
    ///   - duration: the stream's duration; nil (or zero) leaves it out.
    ///   - encoder: the `encoder` property.
    public init(decoderConfiguration record: AVCDecoderConfigurationRecord?, duration: Duration? = nil,
                encoder: String? = "swift-h264") {
        let sps = record?.sequenceParameterSets.lazy.compactMap { try? SequenceParameterSet(rbsp: $0.rbsp) }.first
        let rate = sps?.frameRate.map { Double($0.numerator) / Double($0.denominator) }
        let (seconds, attoseconds) = duration?.components ?? (0, 0)
        let total = Double(seconds) + Double(attoseconds) * 1e-18
        self.init(width: sps?.width, height: sps?.height, frameRate: rate, duration: total > 0 ? total : nil, encoder: encoder)
    }
}
