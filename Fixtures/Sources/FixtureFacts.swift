/// What is known about a fixture stream, as measured by FFmpeg when the fixture was made.
///
/// Access-unit sizes and counts come from `ffprobe -f h264 -show_packets`, decoded frame sizes
/// from `ffprobe -show_frames`, syntax elements from FFmpeg's `trace_headers` bitstream filter.
/// For an AVCC fixture the syntax facts are those of the Annex B stream it was converted from,
/// and ``accessUnitSizes`` and ``nalTypeCounts`` describe the AVCC file itself.
public struct FixtureFacts: Sendable, Hashable, Decodable {
    /// How NAL units are framed in the file.
    public enum Kind: String, Sendable, Hashable, Decodable {
        /// Annex B: start codes.
        case annexB = "annexb"
        /// AVCC: each NAL unit preceded by its length, big-endian, in ``FixtureFacts/lengthSize`` bytes.
        case avcc
    }

    /// The entropy coder chosen by the PPS (`entropy_coding_mode_flag`).
    public enum EntropyCoder: String, Sendable, Hashable, Decodable {
        /// Context-adaptive variable-length coding (`entropy_coding_mode_flag` 0).
        case cavlc = "CAVLC"
        /// Context-adaptive binary arithmetic coding (`entropy_coding_mode_flag` 1).
        case cabac = "CABAC"
    }

    /// A picture size in luma samples.
    public struct Size: Sendable, Hashable {
        /// Width in luma samples.
        public var width: Int
        /// Height in luma samples.
        public var height: Int

        /// Creates a size.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// The file name in `Fixtures/Streams`.
    public let file: String
    /// Annex B or AVCC.
    public let kind: Kind
    /// What the stream is and how it was made.
    public let description: String
    /// The file size in bytes.
    public let byteCount: Int
    /// The SHA-256 of the file, in lowercase hex.
    public let sha256: String
    /// For AVCC: the size of each NAL unit length (1, 2 or 4).
    public let lengthSize: Int?
    /// For AVCC: the file holding the `AVCDecoderConfigurationRecord`.
    public let configurationFile: String?
    /// `profile_idc` of the first SPS.
    public let profileIDC: Int
    /// `level_idc` of the first SPS.
    public let levelIDC: Int
    /// `chroma_format_idc` of the first SPS (1 when absent).
    public let chromaFormatIDC: Int
    /// Luma bit depth (`bit_depth_luma_minus8` + 8).
    public let bitDepthLuma: Int
    /// Chroma bit depth (`bit_depth_chroma_minus8` + 8).
    public let bitDepthChroma: Int
    /// Width after cropping, from the first SPS.
    public let width: Int
    /// Height after cropping, from the first SPS.
    public let height: Int
    /// Width in luma samples of the coded macroblocks, before cropping.
    public let codedWidth: Int
    /// Height in luma samples of the coded macroblocks (both fields for interlaced streams).
    public let codedHeight: Int
    /// `frame_mbs_only_flag`: false for streams that may hold field or MBAFF pictures.
    public let frameMBsOnly: Bool
    /// `mb_adaptive_frame_field_flag`.
    public let mbaff: Bool
    /// `pic_order_cnt_type` of the first SPS.
    public let pocType: Int
    /// The entropy coder of the first PPS; nil when the stream has no PPS.
    public let entropyCoder: EntropyCoder?
    /// Frames FFmpeg decodes from the stream.
    public let frameCount: Int
    /// Access units holding an IDR picture.
    public let idrCount: Int
    /// Access units (FFmpeg's packets).
    public let accessUnitCount: Int
    /// The size in bytes of each access unit as it sits in the file (Annex B: from the first
    /// start code of the unit up to the next unit's; AVCC: its length-prefixed NAL units).
    public let accessUnitSizes: [Int]
    /// How many NAL units of each `nal_unit_type` the file holds.
    public let nalTypeCounts: [UInt8: Int]
    /// How many slices of each type ("I", "P", "B", "SI", "SP").
    public let sliceTypeCounts: [String: Int]
    /// Slices of field pictures (`field_pic_flag` 1).
    public let fieldSlices: Int
    /// B slices with `nal_ref_idc` > 0 (B-pyramid references).
    public let referenceBSlices: Int
    /// The most slices in one access unit.
    public let maxSlicesPerAccessUnit: Int
    /// How many SEI messages of each `payloadType`.
    public let seiPayloadTypeCounts: [Int: Int]
    /// The picture sizes of the stream's sequences, in order (more than one after a
    /// resolution change).
    public let resolutions: [Size]
    /// What a parser must report for the deliberately unusual or broken fixtures.
    public let expect: FixtureExpectations

    private enum CodingKeys: String, CodingKey {
        case file, kind, description, sha256, width, height, mbaff, resolutions, expect
        case byteCount = "bytes"
        case lengthSize = "length_size"
        case configurationFile = "config_file"
        case profileIDC = "profile_idc"
        case levelIDC = "level_idc"
        case chromaFormatIDC = "chroma_format_idc"
        case bitDepthLuma = "bit_depth_luma"
        case bitDepthChroma = "bit_depth_chroma"
        case codedWidth = "coded_width"
        case codedHeight = "coded_height"
        case frameMBsOnly = "frame_mbs_only"
        case pocType = "poc_type"
        case entropyCoder = "entropy_coder"
        case frameCount = "frame_count"
        case idrCount = "idr_count"
        case accessUnitCount = "access_unit_count"
        case accessUnitSizes = "access_unit_sizes"
        case nalTypeCounts = "nal_type_counts"
        case sliceTypeCounts = "slice_type_counts"
        case fieldSlices = "field_slices"
        case referenceBSlices = "reference_b_slices"
        case maxSlicesPerAccessUnit = "max_slices_per_access_unit"
        case seiPayloadTypeCounts = "sei_payload_type_counts"
    }

    /// Decodes one entry of `manifest.json`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        file = try c.decode(String.self, forKey: .file)
        kind = try c.decode(Kind.self, forKey: .kind)
        description = try c.decode(String.self, forKey: .description)
        byteCount = try c.decode(Int.self, forKey: .byteCount)
        sha256 = try c.decode(String.self, forKey: .sha256)
        lengthSize = try c.decodeIfPresent(Int.self, forKey: .lengthSize)
        configurationFile = try c.decodeIfPresent(String.self, forKey: .configurationFile)
        profileIDC = try c.decode(Int.self, forKey: .profileIDC)
        levelIDC = try c.decode(Int.self, forKey: .levelIDC)
        chromaFormatIDC = try c.decode(Int.self, forKey: .chromaFormatIDC)
        bitDepthLuma = try c.decode(Int.self, forKey: .bitDepthLuma)
        bitDepthChroma = try c.decode(Int.self, forKey: .bitDepthChroma)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        codedWidth = try c.decode(Int.self, forKey: .codedWidth)
        codedHeight = try c.decode(Int.self, forKey: .codedHeight)
        frameMBsOnly = try c.decode(Bool.self, forKey: .frameMBsOnly)
        mbaff = try c.decode(Bool.self, forKey: .mbaff)
        pocType = try c.decode(Int.self, forKey: .pocType)
        entropyCoder = try c.decodeIfPresent(EntropyCoder.self, forKey: .entropyCoder)
        frameCount = try c.decode(Int.self, forKey: .frameCount)
        idrCount = try c.decode(Int.self, forKey: .idrCount)
        accessUnitCount = try c.decode(Int.self, forKey: .accessUnitCount)
        accessUnitSizes = try c.decode([Int].self, forKey: .accessUnitSizes)
        nalTypeCounts = try Self.numericKeys(c.decode([String: Int].self, forKey: .nalTypeCounts), c, .nalTypeCounts)
        sliceTypeCounts = try c.decode([String: Int].self, forKey: .sliceTypeCounts)
        fieldSlices = try c.decode(Int.self, forKey: .fieldSlices)
        referenceBSlices = try c.decode(Int.self, forKey: .referenceBSlices)
        maxSlicesPerAccessUnit = try c.decode(Int.self, forKey: .maxSlicesPerAccessUnit)
        seiPayloadTypeCounts = try Self.numericKeys(c.decode([String: Int].self, forKey: .seiPayloadTypeCounts), c, .seiPayloadTypeCounts)
        resolutions = try c.decode([[Int]].self, forKey: .resolutions).map { pair in
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(forKey: .resolutions, in: c, debugDescription: "a size is [width, height]")
            }
            return Size(width: pair[0], height: pair[1])
        }
        expect = try c.decode(FixtureExpectations.self, forKey: .expect)
    }

    private static func numericKeys<K: FixedWidthInteger>(
        _ dictionary: [String: Int], _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys
    ) throws -> [K: Int] {
        var out: [K: Int] = [:]
        for (name, count) in dictionary {
            guard let number = K(name) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(name) is not a number")
            }
            out[number] = count
        }
        return out
    }
}
