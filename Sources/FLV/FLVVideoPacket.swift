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

    /// Parses a video tag body: the legacy `VIDEODATA` header (`CodecID` 7, AVC), or the
    /// enhanced RTMP `ExVideoTagHeader` (`IsExHeader` set) with the FourCC `avc1`, whose packet
    /// types map to the legacy ones: `PacketTypeSequenceStart` to a sequence header,
    /// `PacketTypeCodedFrames` (with its `CompositionTime`) and `PacketTypeCodedFramesX`
    /// (composition time 0) to NALU packets, `PacketTypeSequenceEnd` to an end of sequence, and
    /// `PacketTypeMetadata` and a command frame to a video info frame (nothing to decode).
    /// What it parses is AVC and nothing else: another FourCC (`hvc1`, `av01`, `vp09`) is
    /// refused, never read as AVC.
    /// - Throws: ``FLVError/Code/truncated`` when shorter than its header;
    ///   ``FLVError/Code/unsupported`` for a codec other than AVC (the reason names the
    ///   `CodecID` or the FourCC), and for the enhanced multitrack and `ModEx` packets.
    public init(parsing body: ArraySlice<UInt8>) throws(FLVError) {
        var c = ByteReader<FLVByteReads>(body)
        let first = try c.readUInt8("VIDEODATA FrameType/CodecID")
        if first & 0x80 != 0 {
            self = try Self.enhanced(first, &c)
            return
        }
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

    /// The FourCC of AVC in an enhanced RTMP `ExVideoTagHeader` (`avc1`).
    public static let avcFourCC: UInt32 = 0x6176_6331

    /// The rest of an `ExVideoTagHeader` after its first byte (`IsExHeader`, `FrameType` in 3
    /// bits, `PacketType` in 4), per the enhanced RTMP specification (veovera/enhanced-rtmp).
    private static func enhanced(_ first: UInt8, _ c: inout ByteReader<FLVByteReads>) throws(FLVError) -> FLVVideoPacket {
        let frameType = FrameType(rawValue: (first >> 4) & 0x07)
        let exPacketType = first & 0x0F
        let info = FLVVideoPacket(frameType: .videoInfo, packetType: PacketType(rawValue: 0xFF), data: [])
        if exPacketType != 4 && frameType == .videoInfo {  // VideoCommand: one byte, no FourCC
            var packet = info
            packet.data = c.remaining
            return packet
        }
        guard exPacketType != 6 && exPacketType != 7 else {
            throw FLVError.invalid(.unsupported, "enhanced RTMP video PacketType \(exPacketType) (multitrack or ModEx) is not supported")
        }
        let fourCC = try c.readUInt32("VideoFourCc")
        guard fourCC == avcFourCC else {
            throw FLVError.invalid(.unsupported, "enhanced RTMP video FourCC '\(Self.fourCCName(fourCC))' is not AVC ('avc1')")
        }
        var packet = FLVVideoPacket(frameType: frameType, packetType: .nalu, data: [])
        switch exPacketType {
        case 0: packet.packetType = .sequenceHeader
        case 1: packet.compositionTime = try c.readInt24("CompositionTime")
        case 2: packet.packetType = .endOfSequence
        case 3: break  // CodedFramesX: composition time 0
        case 4:
            packet = info  // PacketTypeMetadata: HDR metadata, nothing for the decoder
        default:
            throw FLVError.invalid(.unsupported, "enhanced RTMP video PacketType \(exPacketType) for avc1")
        }
        packet.data = c.remaining
        return packet
    }

    /// A FourCC as text where its bytes are printable ASCII, else in hexadecimal.
    static func fourCCName(_ value: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 &- 8 &* $0)) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return "0x" + String(value, radix: 16)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
