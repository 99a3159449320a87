import H264
import MediaSupport

/// The body of an FLV video tag carrying AVC (`VIDEODATA` with `AVCVIDEOPACKET`): also the
/// payload of an RTMP video message.
///
/// Layout: `FrameType` (4 bits) and `CodecID` (4 bits, 7 = AVC), `AVCPacketType` (8 bits),
/// `CompositionTime` (SI24, milliseconds), then the data: the avcC record for a sequence
/// header, AVCC-framed NAL units for a NALU packet, nothing for an end of sequence.
public struct FLVVideoPacket: Hashable, Sendable {
    /// `FrameType`.
    public struct FrameType: RawRepresentable, Hashable, Sendable {
        /// The four-bit value.
        public let rawValue: UInt8
        /// Creates a frame type from its four-bit value.
        public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }
        /// A keyframe: a random access point (1).
        public static let keyframe = FrameType(rawValue: 1)
        /// An inter frame (2).
        public static let interFrame = FrameType(rawValue: 2)
        /// A disposable inter frame (3, H.263 only).
        public static let disposableInterFrame = FrameType(rawValue: 3)
        /// A generated keyframe (4, server use only).
        public static let generatedKeyframe = FrameType(rawValue: 4)
        /// A video info or command frame (5).
        public static let videoInfo = FrameType(rawValue: 5)
    }

    /// `AVCPacketType`.
    public struct PacketType: RawRepresentable, Hashable, Sendable {
        /// The byte.
        public let rawValue: UInt8
        /// Creates a packet type.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The AVC sequence header: an `AVCDecoderConfigurationRecord` (0).
        public static let sequenceHeader = PacketType(rawValue: 0)
        /// One access unit as length-prefixed NAL units (1).
        public static let nalu = PacketType(rawValue: 1)
        /// The end of the sequence (2).
        public static let endOfSequence = PacketType(rawValue: 2)
    }

    /// The `CodecID` of AVC.
    public static let avcCodecID: UInt8 = 7
    /// The range of `CompositionTime` (a signed 24-bit field).
    public static let compositionTimeRange: ClosedRange<Int64> = -0x80_0000...0x7F_FFFF

    /// `FrameType`.
    public var frameType: FrameType
    /// `CodecID` (7 for AVC).
    public var codecID: UInt8
    /// `AVCPacketType`.
    public var packetType: PacketType
    /// `CompositionTime`: PTS minus DTS in milliseconds (0 unless ``packetType`` is NALU).
    public var compositionTime: Int32
    /// The data after the five-byte header.
    public var data: ArraySlice<UInt8>

    /// Creates a packet.
    public init(frameType: FrameType, packetType: PacketType, compositionTime: Int32 = 0,
                data: ArraySlice<UInt8>, codecID: UInt8 = FLVVideoPacket.avcCodecID) {
        self.frameType = frameType
        self.codecID = codecID
        self.packetType = packetType
        self.compositionTime = compositionTime
        self.data = data
    }

    /// A sequence header carrying an avcC record (frame type keyframe, AVCPacketType 0).
    public static func sequenceHeader(_ avcC: ArraySlice<UInt8>) -> FLVVideoPacket {
        FLVVideoPacket(frameType: .keyframe, packetType: .sequenceHeader, data: avcC)
    }

    /// A NALU packet for one sample (frame type 1 for keyframes, 2 otherwise).
    /// - Throws: ``FLVError/Code/invalidArgument`` when PTS - DTS does not fit the SI24
    ///   `CompositionTime`.
    public static func frame(_ sample: FLVVideoSample) throws(FLVError) -> FLVVideoPacket {
        let ct = sample.pts.subtractingReportingOverflow(sample.dts)
        guard !ct.overflow, compositionTimeRange.contains(ct.partialValue) else {
            throw FLVError.invalid(.invalidArgument, "composition time pts \(sample.pts) - dts \(sample.dts) does not fit 24 bits")
        }
        return FLVVideoPacket(frameType: sample.isKeyframe ? .keyframe : .interFrame, packetType: .nalu,
                              compositionTime: Int32(ct.partialValue), data: sample.data)
    }

    /// The end-of-sequence packet (AVCPacketType 2).
    public static let endOfSequence = FLVVideoPacket(frameType: .keyframe, packetType: .endOfSequence, data: [])

    /// Appends the tag body: the five-byte header, then the data.
    public func write(into out: inout [UInt8]) {
        out.append(frameType.rawValue << 4 | codecID & 0x0F)
        out.append(packetType.rawValue)
        out.writeUInt24(UInt32(bitPattern: compositionTime) & 0xFF_FFFF)
        out.append(contentsOf: data)
    }

    /// The tag body as a new array.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count &+ 5)  // data.count is an array size, far below Int.max
        write(into: &out)
        return out
    }

    /// Parses a video tag body.
    /// - Throws: ``FLVError/Code/truncated`` when shorter than its header;
    ///   ``FLVError/Code/unsupported`` for a codec other than AVC.
    public init(parsing body: ArraySlice<UInt8>) throws(FLVError) {
        var c = ByteReader<FLVByteReads>(body)
        let first = try c.readUInt8("VIDEODATA FrameType/CodecID")
        codecID = first & 0x0F
        frameType = FrameType(rawValue: first >> 4)
        guard codecID == Self.avcCodecID else {
            throw FLVError.invalid(.unsupported, "FLV video CodecID \(codecID) is not AVC (7)")
        }
        if frameType == .videoInfo {  // a command frame: one byte, no AVC packet header
            packetType = PacketType(rawValue: 0xFF)
            compositionTime = 0
            data = c.remaining
            return
        }
        packetType = PacketType(rawValue: try c.readUInt8("AVCPacketType"))
        compositionTime = try c.readInt24("CompositionTime")
        data = c.remaining
    }
}
