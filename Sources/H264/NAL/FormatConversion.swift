/// Conversion between the two framings of an H.264 stream: Annex-B (start codes, parameter
/// sets in band) and AVCC (length prefixes, parameter sets in an ``AVCDecoderConfigurationRecord``).
public enum FormatConversion {
    /// Where Annex-B -> AVCC conversion puts the parameter sets.
    public enum ParameterSetPlacement: Sendable, Hashable {
        /// Into the avcC record only: in-band copies of the record's parameter sets are removed;
        /// a parameter set that differs from all of them (a change mid-stream) stays in band.
        case outOfBand
        /// Into the avcC record and also left in band where they were.
        case inBand
    }

    /// An AVCC stream: length-prefixed NAL units and the record that goes with them.
    public struct AVCCStream: Sendable {
        /// The length-prefixed NAL units (one after another, no sample boundaries).
        public var bytes: [UInt8]
        /// The decoder configuration record (the `avcC` box payload).
        public var configuration: AVCDecoderConfigurationRecord
    }

    // MARK: - Annex-B to AVCC

    /// Converts an Annex-B stream to length-prefixed NAL units and an avcC record.
    ///
    /// The record holds the distinct parameter sets (SPS, PPS, SPS extension) that come before
    /// the first slice (more are taken until the record has an SPS).
    /// - Parameters:
    ///   - stream: the Annex-B stream.
    ///   - lengthSize: the size of the length prefixes.
    ///   - placement: whether parameter sets also stay in band.
    ///   - leadingData: the policy for bytes before the first start code.
    /// - Throws: the splitter's errors, ``H264Error/Code/nalUnitTooLarge`` for a NAL unit the
    ///   length size cannot hold, ``H264Error/Code/missingParameterSet`` when the stream has no
    ///   SPS, and the record's errors.
    /// - Complexity: O(n): one scan and one copy.
    public static func annexBToAVCC(_ stream: ArraySlice<UInt8>, lengthSize: AVCC.LengthSize = .four,
                                    placement: ParameterSetPlacement = .outOfBand,
                                    leadingData: AnnexB.LeadingDataPolicy = .reject) throws(H264Error) -> AVCCStream {
        var splitter = AnnexB.Splitter(stream, leadingData: leadingData)
        var out: [UInt8] = []
        out.reserveCapacity(stream.count)
        var collector = ParameterSetCollector()
        while let unit = try splitter.next() {
            if unit.type.isParameterSet || unit.type.isVCL {
                if collector.offer(unit) && placement == .outOfBand { continue }
            }
            try AVCC.append(unit, lengthSize: lengthSize, to: &out)
        }
        let configuration = try AVCDecoderConfigurationRecord(parameterSets: collector.record, lengthSize: lengthSize)
        return AVCCStream(bytes: out, configuration: configuration)
    }

    /// Chooses the record's parameter sets while the stream goes by.
    struct ParameterSetCollector {
        private(set) var record: [NALUnit] = []
        private var open = true
        private var hasSPS = false

        /// Offers a parameter set or slice; true when `unit` is a parameter set the record holds
        /// (so it may be dropped from the stream).
        mutating func offer(_ unit: NALUnit) -> Bool {
            let type = unit.type
            if type.isVCL {
                if hasSPS { open = false }
                return false
            }
            guard type == .sps || type == .pps || type == .spsExtension else { return false }  // subset SPS stays in band
            if record.contains(unit) { return true }
            guard open else { return false }
            record.append(unit)
            if type == .sps { hasSPS = true }
            return true
        }
    }

    // MARK: - AVCC to Annex-B

    /// Converts length-prefixed NAL units to an Annex-B stream with 4-byte start codes.
    ///
    /// Every access unit that holds an IDR slice but no SPS and PPS in band gets the record's
    /// parameter sets (SPS, PPS, SPS extensions), or its PPSs when only an SPS is in band, at the
    /// start of the access unit: after an access unit delimiter, before any SEI. (FFmpeg's
    /// `h264_mp4toannexb` puts them right before the slice, after the SEI, which leaves a
    /// buffering-period SEI referring to an SPS not yet seen.)
    /// - Parameters:
    ///   - bytes: the length-prefixed NAL units.
    ///   - configuration: the avcC record.
    ///   - lengthSize: the size of the length prefixes; by default the record's.
    /// - Throws: the errors of ``AVCC/Reader/next()``.
    /// - Complexity: O(n).
    public static func avccToAnnexB(_ bytes: ArraySlice<UInt8>, configuration: AVCDecoderConfigurationRecord,
                                    lengthSize: AVCC.LengthSize? = nil) throws(H264Error) -> [UInt8] {
        var reader = AVCC.Reader(bytes, lengthSize: lengthSize ?? configuration.nalUnitLengthSize)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count &+ bytes.count / 64 &+ 64)
        var writer = AnnexBAccessUnitWriter(configuration: configuration)
        while let unit = try reader.next() { writer.add(unit, to: &out) }
        writer.finish(to: &out)
        return out
    }

    /// Writes NAL units as Annex-B, one access unit at a time, inserting the record's parameter
    /// sets into IDR access units that lack them.
    struct AnnexBAccessUnitWriter {
        let configuration: AVCDecoderConfigurationRecord
        private var boundaries = AccessUnitBoundaryDetector()
        private var accessUnit: [NALUnit] = []

        init(configuration: AVCDecoderConfigurationRecord) { self.configuration = configuration }

        mutating func add(_ unit: NALUnit, to out: inout [UInt8]) {
            if boundaries.startsAccessUnit(unit) { flush(to: &out) }
            accessUnit.append(unit)
        }

        mutating func finish(to out: inout [UInt8]) { flush(to: &out) }

        private mutating func flush(to out: inout [UInt8]) {
            defer { accessUnit.removeAll(keepingCapacity: true) }
            var hasIDR = false, hasSPS = false, hasPPS = false
            for unit in accessUnit {
                switch unit.type {
                case .idrSlice: hasIDR = true
                case .sps: hasSPS = true
                case .pps: hasPPS = true
                default: break
                }
            }
            var insert: [NALUnit] = []
            if hasIDR && !hasPPS {
                insert = configuration.pictureParameterSets
                if !hasSPS {
                    insert = configuration.sequenceParameterSets
                        + (configuration.highProfileExtension?.sequenceParameterSetExtensions ?? []) + insert
                }
            }
            var i = 0
            if !insert.isEmpty, let first = accessUnit.first, first.type == .accessUnitDelimiter {
                AnnexB.append(first, to: &out)
                i = 1
            }
            for unit in insert { AnnexB.append(unit, to: &out) }
            while i < accessUnit.count {
                AnnexB.append(accessUnit[i], to: &out)
                i &+= 1
            }
        }
    }
}
