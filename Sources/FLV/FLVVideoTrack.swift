import H264

/// The whole H.264 video of an FLV file: its metadata and its samples, grouped by the
/// sequence header (avcC record) in force.
public struct FLVVideoTrack: Hashable, Sendable {
    /// Samples that share one sequence header.
    public struct Segment: Hashable, Sendable {
        /// The avcC record of the sequence header.
        public var decoderConfiguration: ArraySlice<UInt8>
        /// The samples in decoding order.
        public var samples: [FLVVideoSample]

        /// Creates a segment.
        public init(decoderConfiguration: ArraySlice<UInt8>, samples: [FLVVideoSample] = []) {
            self.decoderConfiguration = decoderConfiguration
            self.samples = samples
        }
    }

    /// The first `onMetaData`, if any.
    public var metadata: FLVMetadata?
    /// One segment per distinct sequence header, in file order.
    public var segments: [Segment]
    /// True when the file ends the sequence with an end-of-sequence tag.
    public var hasEndOfSequence: Bool

    /// Every sample, in decoding order.
    public var samples: [FLVVideoSample] { segments.flatMap(\.samples) }

    /// Reads every video tag of a file.
    /// - Throws: the errors of ``FLVReader/nextVideoEvent()``; ``FLVError/Code/missingDecoderConfiguration``
    ///   for a sample before any sequence header.
    /// - Complexity: O(number of tags); samples are views into `bytes`.
    public init(reading bytes: ArraySlice<UInt8>, options: FLVReader.Options = FLVReader.Options()) throws(FLVError) {
        var reader = try FLVReader(bytes, options: options)
        metadata = nil
        segments = []
        hasEndOfSequence = false
        while let event = try reader.nextVideoEvent() {
            switch event {
            case .metadata(let m):
                if metadata == nil { metadata = m }
            case .decoderConfiguration(let avcC, _):
                if let last = segments.last, last.decoderConfiguration.elementsEqual(avcC) { continue }
                segments.append(Segment(decoderConfiguration: avcC))
            case .sample(let s):
                guard !segments.isEmpty else {
                    throw FLVError.invalid(.missingDecoderConfiguration, "FLV sample at \(s.dts) ms before any AVC sequence header")
                }
                segments[segments.count - 1].samples.append(s)
            case .endOfSequence:
                hasEndOfSequence = true
            }
        }
    }

    /// Reads every video tag of a file held in an array.
    public init(reading bytes: [UInt8], options: FLVReader.Options = FLVReader.Options()) throws(FLVError) {
        try self.init(reading: bytes[...], options: options)
    }

    /// The video as an Annex-B byte stream, as ``FLVAnnexBWriter`` writes it: each sample's
    /// NAL units behind 4-byte start codes, with the SPS and PPS a keyframe refers to inserted
    /// when it does not carry them.
    /// - Throws: the errors of ``FLVAnnexBWriter/add(_:to:)`` for a malformed sample.
    /// - Complexity: O(total size).
    public func annexB() throws(FLVError) -> [UInt8] {
        var out: [UInt8] = []
        var writer = FLVAnnexBWriter()
        for segment in segments {
            try writer.add(.decoderConfiguration(segment.decoderConfiguration, timestamp: 0), to: &out)
            for sample in segment.samples { try writer.add(.sample(sample), to: &out) }
        }
        return out
    }
}
