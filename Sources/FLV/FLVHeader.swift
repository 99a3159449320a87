import H264
import MediaSupport

/// The 9-byte FLV file header (`FLV`, version 1, audio/video flags, data offset), followed in
/// the file by `PreviousTagSize0` (always 0).
public struct FLVHeader: Hashable, Sendable {
    /// `TypeFlagsAudio`: the file announces audio tags.
    public var hasAudio: Bool
    /// `TypeFlagsVideo`: the file announces video tags.
    public var hasVideo: Bool
    /// The FLV version (1).
    public var version: UInt8
    /// `DataOffset`: the size of the header, 9 for version 1 (bytes before it are skipped).
    public var dataOffset: UInt32

    /// Creates a header; by default video only.
    public init(hasAudio: Bool = false, hasVideo: Bool = true, version: UInt8 = 1) {
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.version = version
        self.dataOffset = 9
    }

    /// Appends the header and `PreviousTagSize0` (13 bytes).
    public func write(into out: inout [UInt8]) {
        out += [0x46, 0x4C, 0x56, version, (hasAudio ? 0x04 : 0) | (hasVideo ? 0x01 : 0)]
        out.writeUInt32(9)
        out.writeUInt32(0)
    }

    /// Parses the header and `PreviousTagSize0` from the front of `cursor`.
    /// - Throws: ``FLVError/Code/invalidContainer`` without the `FLV` signature or with a data
    ///   offset below 9; ``FLVError/Code/truncated`` when the file is shorter.
    static func read(_ c: inout ByteReader<FLVByteReads>) throws(FLVError) -> FLVHeader {
        let signature = try c.readBytes(3, "FLV signature")
        guard signature.elementsEqual([0x46, 0x4C, 0x56]) else {
            throw FLVError.invalid(.invalidContainer, "no FLV signature")
        }
        var h = FLVHeader()
        h.version = try c.readUInt8("FLV version")
        let flags = try c.readUInt8("FLV flags")
        h.hasAudio = flags & 0x04 != 0
        h.hasVideo = flags & 0x01 != 0
        h.dataOffset = try c.readUInt32("FLV data offset")
        guard h.dataOffset >= 9 else {
            throw FLVError.invalid(.invalidContainer, "FLV data offset \(h.dataOffset) is below the header size 9")
        }
        try c.skip(Int(h.dataOffset) - 9, "FLV header extension")
        _ = try c.readUInt32("PreviousTagSize0")
        return h
    }
}
