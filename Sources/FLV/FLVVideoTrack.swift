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
    /// - Throws: the errors of ``FLVReader/nextVideoEvent()``; ``H264Error/Code/missingParameterSet``
    ///   for a sample before any sequence header.
    /// - Complexity: O(number of tags); samples are views into `bytes`.
    public init(reading bytes: ArraySlice<UInt8>, options: FLVReader.Options = FLVReader.Options()) throws(H264Error) {
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
                    throw H264Error.invalid(.missingParameterSet, "FLV sample at \(s.dts) ms before any AVC sequence header")
                }
                segments[segments.count - 1].samples.append(s)
            case .endOfSequence:
                hasEndOfSequence = true
            }
        }
    }

    /// Reads every video tag of a file held in an array.
    public init(reading bytes: [UInt8], options: FLVReader.Options = FLVReader.Options()) throws(H264Error) {
        try self.init(reading: bytes[...], options: options)
    }

    /// The video as an Annex-B byte stream: each sample's length-prefixed NAL units behind
    /// 4-byte start codes, with the SPS and PPS of the avcC record inserted into every keyframe
    /// (or sample with an IDR slice) that does not carry its own, after any access unit
    /// delimiter and before everything else.
    ///
    /// FFmpeg's `h264_mp4toannexb` puts them right before the first IDR slice instead (after
    /// SEI); the NAL units are otherwise the same.
    /// - Throws: ``H264Error/Code/lengthPastEnd`` and NAL header errors for a malformed sample.
    /// - Complexity: O(total size).
    public func annexB() throws(H264Error) -> [UInt8] {
        // TODO(integration): switch to the core AVCC -> Annex-B conversion once it exists.
        var out: [UInt8] = []
        for segment in segments {
            let config = try DecoderConfigurationBytes(segment.decoderConfiguration)
            for sample in segment.samples {
                let units = try lengthPrefixedUnits(sample.data, lengthSize: config.lengthSize)
                let random = sample.isKeyframe || units.contains { $0.type == .idrSlice }
                let hasSPS = units.contains { $0.type == .sps }
                let hasPPS = units.contains { $0.type == .pps }
                var inserted = !random || (hasSPS && hasPPS)
                for unit in units {
                    if !inserted && unit.type != .accessUnitDelimiter {
                        if !hasSPS { for sps in config.sequenceParameterSets { AnnexB.append(sps, to: &out) } }
                        for pps in config.pictureParameterSets { AnnexB.append(pps, to: &out) }
                        inserted = true
                    }
                    AnnexB.append(unit, to: &out)
                }
            }
        }
        return out
    }
}
