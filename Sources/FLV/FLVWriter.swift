import H264

/// Writes an H.264 FLV file into memory: header, `onMetaData`, AVC sequence headers, one tag
/// per sample, the end-of-sequence tag.
///
/// The output accumulates in ``bytes``; a caller that streams takes it with ``takeBytes()``
/// whenever it likes. A sample needs a sequence header first; passing a different avcC record
/// to ``writeDecoderConfiguration(_:timestamp:)`` later writes a new sequence header (a format
/// change), passing the same one again writes nothing.
///
/// ```swift
/// var flv = FLVWriter()
/// try flv.writeMetadata(FLVMetadata(width: 640, height: 360, frameRate: 25))
/// try flv.writeDecoderConfiguration(avcC, timestamp: 0)
/// for s in samples { try flv.writeSample(s) }
/// try flv.writeEndOfSequence()
/// ```
public struct FLVWriter: Sendable {
    /// The bytes written and not yet taken.
    public private(set) var bytes: [UInt8] = []
    /// The avcC record of the last sequence header, nil before the first.
    public private(set) var decoderConfiguration: [UInt8]?
    /// The decoding time of the last sample, nil before the first.
    public private(set) var lastDTS: Int64?

    /// Starts a file: writes the FLV header (video only by default) and `PreviousTagSize0`.
    public init(header: FLVHeader = FLVHeader()) {
        header.write(into: &bytes)
    }

    /// Returns the bytes written so far and empties ``bytes``.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// Writes an `onMetaData` script tag at time 0.
    /// - Throws: ``FLVError/Code/limitExceeded`` when the encoded metadata exceeds a tag.
    public mutating func writeMetadata(_ metadata: FLVMetadata) throws(FLVError) {
        try writeTag(FLVTag(type: .script, timestamp: 0, body: metadata.scriptTagBody[...]))
    }

    /// Writes an AVC sequence header with `avcC` unless it equals the current one.
    /// - Parameters:
    ///   - avcC: the `AVCDecoderConfigurationRecord` (the payload of an MP4 avcC box).
    ///   - timestamp: its tag time in milliseconds (usually the DTS of the next sample).
    /// - Throws: ``FLVError/Code/invalidDecoderConfiguration`` when `avcC` is not an avcC
    ///   record, ``FLVError/Code/invalidArgument`` for a time outside 0...2^32-1.
    public mutating func writeDecoderConfiguration(_ avcC: [UInt8], timestamp: Int64) throws(FLVError) {
        guard avcC != decoderConfiguration else { return }
        _ = try AVCDecoderConfigurationRecord.flvSequenceHeader(avcC[...])
        let body = FLVVideoPacket.sequenceHeader(avcC[...]).bytes
        try writeTag(FLVTag(type: .video, timestamp: try Self.tagTime(timestamp), body: body[...]))
        decoderConfiguration = avcC
    }

    /// Writes one sample as a NALU tag.
    /// - Throws: ``FLVError/Code/missingDecoderConfiguration`` before any sequence header;
    ///   ``FLVError/Code/invalidArgument`` when the DTS goes backwards or leaves 0...2^32-1, or
    ///   PTS - DTS does not fit 24 bits; ``FLVError/Code/limitExceeded`` for a sample larger
    ///   than a tag can hold.
    public mutating func writeSample(_ sample: FLVVideoSample) throws(FLVError) {
        guard decoderConfiguration != nil else {
            throw FLVError.invalid(.missingDecoderConfiguration, "FLV sample before any AVC sequence header")
        }
        if let lastDTS, sample.dts < lastDTS {
            throw FLVError.invalid(.invalidArgument, "DTS \(sample.dts) goes back from \(lastDTS)")
        }
        let packet = try FLVVideoPacket.frame(sample)
        let time = try Self.tagTime(sample.dts)
        var body: [UInt8] = []
        body.reserveCapacity(sample.data.count &+ 5)  // an array count plus 5 cannot overflow
        packet.write(into: &body)
        try writeTag(FLVTag(type: .video, timestamp: time, body: body[...]))
        lastDTS = sample.dts
    }

    /// Writes what ``FLVSampleBuilder`` made for one access unit or frame: the sequence header
    /// first when it holds one (at the sample's DTS), then the sample.
    /// - Throws: as ``writeDecoderConfiguration(_:timestamp:)`` and ``writeSample(_:)``.
    public mutating func write(_ built: (avcC: [UInt8]?, sample: FLVVideoSample)) throws(FLVError) {
        if let avcC = built.avcC { try writeDecoderConfiguration(avcC, timestamp: built.sample.dts) }
        try writeSample(built.sample)
    }

    /// Writes the end-of-sequence tag (AVCPacketType 2).
    /// - Parameter timestamp: its time; by default the last sample's DTS (or 0).
    public mutating func writeEndOfSequence(timestamp: Int64? = nil) throws(FLVError) {
        let time = try Self.tagTime(timestamp ?? lastDTS ?? 0)
        try writeTag(FLVTag(type: .video, timestamp: time, body: FLVVideoPacket.endOfSequence.bytes[...]))
    }

    /// Writes any tag (audio, script, video) as it is.
    public mutating func writeTag(_ tag: FLVTag) throws(FLVError) {
        try tag.write(into: &bytes)
    }

    /// An FLV tag time from milliseconds.
    static func tagTime(_ ms: Int64) throws(FLVError) -> UInt32 {
        guard let t = UInt32(exactly: ms) else {
            throw FLVError.invalid(.invalidArgument, "time \(ms) ms is outside the FLV range 0...\(UInt32.max)")
        }
        return t
    }
}
