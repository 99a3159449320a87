import H264
import MediaSupport

/// What the video layer of an FLV file holds, tag by tag.
public enum FLVVideoEvent: Hashable, Sendable {
    /// An `onMetaData` script tag.
    case metadata(FLVMetadata)
    /// An AVC sequence header: the avcC record (a view into the file), at a tag time.
    case decoderConfiguration(ArraySlice<UInt8>, timestamp: Int64)
    /// A NALU tag: one access unit.
    case sample(FLVVideoSample)
    /// An end-of-sequence tag.
    case endOfSequence(timestamp: Int64)
}

/// Reads an FLV file held in memory: the header, then tag by tag (``nextTag()``) or, for the
/// H.264 video, event by event (``nextVideoEvent()``). Nothing is copied: tag bodies and
/// samples are views into the caller's bytes.
public struct FLVReader: Sendable {
    /// Limits and strictness.
    public struct Options: Sendable, Hashable {
        /// The largest tag body accepted (at most ``FLVTag/maximumBodySize``).
        public var maximumTagSize: Int
        /// Throw when a `PreviousTagSize` does not match the tag before it.
        public var checkPreviousTagSize: Bool

        /// Creates options; by default any tag the format allows, and checked tag sizes.
        public init(maximumTagSize: Int = FLVTag.maximumBodySize, checkPreviousTagSize: Bool = true) {
            self.maximumTagSize = maximumTagSize
            self.checkPreviousTagSize = checkPreviousTagSize
        }
    }

    /// The file header.
    public let header: FLVHeader
    /// The options in force.
    public let options: Options
    private var cursor: ByteReader<FLVByteReads>

    /// Reads the header of `bytes`.
    /// - Throws: ``FLVError/Code/invalidContainer`` without an FLV signature,
    ///   ``FLVError/Code/truncated`` when the header is cut.
    public init(_ bytes: ArraySlice<UInt8>, options: Options = Options()) throws(FLVError) {
        var c = ByteReader<FLVByteReads>(bytes)
        header = try FLVHeader.read(&c)
        cursor = c
        self.options = options
    }

    /// Reads the header of an array of bytes.
    public init(_ bytes: [UInt8], options: Options = Options()) throws(FLVError) {
        try self.init(bytes[...], options: options)
    }

    /// Offset of the next tag in the caller's buffer.
    public var position: Int { cursor.position }

    /// The next tag, or nil at the end of the file.
    /// - Throws: ``FLVError/Code/truncated`` for a cut tag, ``FLVError/Code/limitExceeded``
    ///   for a body above the limit, ``FLVError/Code/invalidContainer`` for reserved bits or
    ///   a wrong `PreviousTagSize`. The reader does not move past a tag that throws.
    public mutating func nextTag() throws(FLVError) -> FLVTag? {
        guard !cursor.isAtEnd else { return nil }
        var c = cursor
        let tag = try FLVTag.read(&c, maximumBodySize: min(options.maximumTagSize, FLVTag.maximumBodySize),
                                  checkPreviousTagSize: options.checkPreviousTagSize)
        cursor = c
        return tag
    }

    /// The next video event: metadata, a sequence header, a sample or an end of sequence.
    /// Audio tags, other script data and video info frames are skipped.
    /// - Throws: the errors of ``nextTag()``; ``FLVError/Code/invalidDecoderConfiguration``
    ///   for a sequence header that is not an avcC record (e.g. Annex-B bytes);
    ///   ``FLVError/Code/unsupported`` for a non-AVC or encrypted video tag;
    ///   ``FLVError/Code/invalidContainer`` for a malformed video or script tag.
    public mutating func nextVideoEvent() throws(FLVError) -> FLVVideoEvent? {
        while let tag = try nextTag() {
            if let event = try Self.event(tag) { return event }
        }
        return nil
    }

    /// The video event a tag holds: `onMetaData`, or what ``videoEvent(_:)`` finds; nil for
    /// audio, other script data and video info frames.
    static func event(_ tag: FLVTag) throws(FLVError) -> FLVVideoEvent? {
        switch tag.type {
        case .script:
            var body = tag.body
            guard case .string("onMetaData") = try AMF0.decode(from: &body) else { return nil }
            return .metadata(FLVMetadata(try AMF0.decode(from: &body)))
        case .video:
            return try videoEvent(tag)
        default:
            return nil
        }
    }

    static func videoEvent(_ tag: FLVTag) throws(FLVError) -> FLVVideoEvent? {
        guard !tag.isFiltered else {
            throw FLVError.invalid(.unsupported, "encrypted FLV video tag at \(tag.timestamp) ms")
        }
        let packet = try FLVVideoPacket(parsing: tag.body)
        let time = Int64(tag.timestamp)
        switch packet.packetType {
        case _ where packet.frameType == .videoInfo:
            return nil
        case .sequenceHeader:
            _ = try AVCDecoderConfigurationRecord.flvSequenceHeader(packet.data)
            return .decoderConfiguration(packet.data, timestamp: time)
        case .nalu:
            return .sample(FLVVideoSample(dts: time, pts: time &+ Int64(packet.compositionTime),  // 32 + 24 bits
                                          isKeyframe: packet.frameType == .keyframe, data: packet.data))
        case .endOfSequence:
            return .endOfSequence(timestamp: time)
        default:
            throw FLVError.invalid(.invalidContainer, "AVCPacketType \(packet.packetType.rawValue) at \(time) ms")
        }
    }
}
