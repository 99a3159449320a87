import H264

/// One video frame as FLV carries it: an access unit of AVCC-framed NAL units with its
/// decoding and presentation times in milliseconds.
public struct FLVVideoSample: Hashable, Sendable {
    /// Decoding time in milliseconds (the tag timestamp).
    public var dts: Int64
    /// Presentation time in milliseconds.
    public var pts: Int64
    /// The frame is a random access point (FLV `FrameType` 1).
    public var isKeyframe: Bool
    /// The access unit: NAL units each preceded by a big-endian length (4 bytes unless the
    /// avcC record says otherwise).
    public var data: ArraySlice<UInt8>

    /// Creates a sample.
    public init(dts: Int64, pts: Int64, isKeyframe: Bool, data: ArraySlice<UInt8>) {
        self.dts = dts
        self.pts = pts
        self.isKeyframe = isKeyframe
        self.data = data
    }

    /// Creates a sample from an array.
    public init(dts: Int64, pts: Int64, isKeyframe: Bool, data: [UInt8]) {
        self.init(dts: dts, pts: pts, isKeyframe: isKeyframe, data: data[...])
    }

    /// `CompositionTime`: PTS minus DTS (wrapping only for times no FLV file can hold).
    public var compositionTime: Int64 { pts &- dts }
}
