/// A PMT `stream_type` (ISO/IEC 13818-1 Table 2-34, and the registered values after it): what
/// an elementary stream carries.
public struct TSStreamType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `stream_type` byte.
    public var rawValue: UInt8

    /// A stream type from its byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x1B: AVC video (ITU-T H.264), the type this module muxes and demuxes to access units.
    public static let h264 = TSStreamType(rawValue: 0x1B)
    /// 0x24: HEVC video (ITU-T H.265), passed through as opaque PES.
    public static let hevc = TSStreamType(rawValue: 0x24)
    /// 0x0F: AAC audio with ADTS framing (ISO/IEC 13818-7).
    public static let aacADTS = TSStreamType(rawValue: 0x0F)
    /// 0x11: AAC audio with LATM framing (ISO/IEC 14496-3).
    public static let aacLATM = TSStreamType(rawValue: 0x11)
    /// 0x03: MPEG-1 audio.
    public static let mpeg1Audio = TSStreamType(rawValue: 0x03)
    /// 0x04: MPEG-2 audio.
    public static let mpeg2Audio = TSStreamType(rawValue: 0x04)
    /// 0x06: PES packets with private data (AC-3, Opus, subtitles, by descriptor).
    public static let privatePES = TSStreamType(rawValue: 0x06)
    /// 0x15: metadata in PES packets (ID3 timed metadata for HLS).
    public static let metadata = TSStreamType(rawValue: 0x15)

    /// The `stream_id` a PES of this type is written with when none is given: 0xE0 (video
    /// stream 0) for video, 0xC0 (audio stream 0) for MPEG and AAC audio, 0xBD
    /// (`private_stream_1`) for the rest (Table 2-22).
    public var defaultStreamID: UInt8 {
        switch rawValue {
        case 0x01, 0x02, 0x10, 0x1B, 0x24: 0xE0
        case 0x03, 0x04, 0x0F, 0x11: 0xC0
        default: 0xBD
        }
    }

    /// What the type carries, for a listing (`H.264`, `AAC (ADTS)`...), nil for a type this
    /// module does not name.
    public var name: String? {
        switch rawValue {
        case 0x01: "MPEG-1 video"
        case 0x02: "MPEG-2 video"
        case 0x03: "MPEG-1 audio"
        case 0x04: "MPEG-2 audio"
        case 0x06: "private data PES"
        case 0x0F: "AAC (ADTS)"
        case 0x11: "AAC (LATM)"
        case 0x15: "metadata PES"
        case 0x1B: "H.264"
        case 0x24: "HEVC"
        default: nil
        }
    }

    /// `0x1B`.
    public var description: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }
}

/// One elementary stream of a program as its PMT lists it (ISO/IEC 13818-1 2.4.4.9): its PID,
/// `stream_type` and descriptors.
public struct TSElementaryStreamInfo: Hashable, Sendable {
    /// `elementary_PID`: 0x0010...0x1FFE.
    public var pid: UInt16
    /// `stream_type`.
    public var streamType: TSStreamType
    /// The `stream_id` of its PES packets (the muxer's; the demuxer reports the one each PES
    /// carries): by default ``TSStreamType/defaultStreamID``.
    public var streamID: UInt8
    /// The descriptors of its ES info loop, as they are (at most 1,023 bytes).
    public var descriptors: [UInt8]

    /// Creates the description of a stream.
    public init(pid: UInt16, streamType: TSStreamType, streamID: UInt8? = nil, descriptors: [UInt8] = []) {
        self.pid = pid
        self.streamType = streamType
        self.streamID = streamID ?? streamType.defaultStreamID
        self.descriptors = descriptors
    }
}

/// A program as its PMT describes it (ISO/IEC 13818-1 2.4.4.8): its number, the PIDs of its
/// map and clock, and its elementary streams.
public struct TSProgramMap: Hashable, Sendable {
    /// `program_number`.
    public var programNumber: UInt16
    /// The PID the PMT travels on (from the PAT).
    public var pmtPID: UInt16
    /// `PCR_PID`: the PID whose adaptation fields carry the program's clock (0x1FFF: none).
    public var pcrPID: UInt16
    /// `version_number` of the PMT (0...31).
    public var version: UInt8
    /// The program's descriptors, as they are.
    public var descriptors: [UInt8]
    /// The elementary streams in the PMT's order.
    public var streams: [TSElementaryStreamInfo]

    /// Creates a program map.
    public init(programNumber: UInt16, pmtPID: UInt16, pcrPID: UInt16, version: UInt8 = 0, descriptors: [UInt8] = [],
                streams: [TSElementaryStreamInfo]) {
        self.programNumber = programNumber
        self.pmtPID = pmtPID
        self.pcrPID = pcrPID
        self.version = version
        self.descriptors = descriptors
        self.streams = streams
    }
}
