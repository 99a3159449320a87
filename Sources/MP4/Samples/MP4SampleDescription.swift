import H264

/// One sample description (an `stsd` entry): for H.264, an `avc1` or `avc3` visual sample
/// entry with its `avcC` record, and the `pasp` and `colr` boxes that repeat the SPS's VUI for
/// players that read the container rather than the stream.
///
/// A track has one description per configuration: when the avcC record changes mid-stream
/// (new parameter sets, a resolution change) a progressive file gets a second `stsd` entry and
/// a fragmented one a new init segment.
public struct MP4SampleDescription: Hashable, Sendable {
    /// The sample entry's type: `avc1` (parameter sets only in the avcC record) or `avc3`
    /// (parameter sets may also be in the samples); any other type a reader met (`encv`,
    /// `hvc1`, ...).
    public var format: MP4FourCC
    /// The avcC record; nil for an entry that is not H.264 (or an encrypted one without it).
    public var decoderConfiguration: AVCDecoderConfigurationRecord?
    /// The width in the sample entry (the SPS's cropped width).
    public var width: Int
    /// The height in the sample entry (the SPS's cropped height).
    public var height: Int
    /// `pasp`: the pixel (sample) aspect ratio, nil when absent.
    public var pixelAspectRatio: MP4PixelAspectRatio?
    /// `colr`: colour information, nil when absent.
    public var colour: MP4ColourInformation?
    /// For a protected entry (`encv`), the original format from `sinf`/`frma`.
    public var originalFormat: MP4FourCC?

    /// Creates a description from its parts.
    public init(format: MP4FourCC = "avc1", decoderConfiguration: AVCDecoderConfigurationRecord?, width: Int, height: Int,
                pixelAspectRatio: MP4PixelAspectRatio? = nil, colour: MP4ColourInformation? = nil,
                originalFormat: MP4FourCC? = nil) {
        self.format = format
        self.decoderConfiguration = decoderConfiguration
        self.width = width
        self.height = height
        self.pixelAspectRatio = pixelAspectRatio
        self.colour = colour
        self.originalFormat = originalFormat
    }

    /// Creates an `avc1` (or `avc3`) description from an avcC record: the size after cropping
    /// from its first SPS, `pasp` from the VUI's aspect ratio (1:1 when the SPS gives none),
    /// and `colr` (`nclx`) from the VUI's colour description and range (2, 2, 2 -
    /// "unspecified" - when it gives none), so players that read only the container agree
    /// with the stream.
    /// - Throws: ``MP4Error/Code/invalidDecoderConfiguration`` when the record has no SPS or
    ///   its first SPS does not parse.
    public init(decoderConfiguration record: AVCDecoderConfigurationRecord, format: MP4FourCC = "avc1") throws(MP4Error) {
        guard let first = record.sequenceParameterSets.first else {
            throw MP4Error.invalid(.invalidDecoderConfiguration, "the avcC record has no SPS")
        }
        let sps: SequenceParameterSet
        do { sps = try SequenceParameterSet(rbsp: first.rbsp) } catch { throw MP4Error.h264(error, "the avcC record's SPS") }
        self.format = format
        decoderConfiguration = record
        width = sps.width
        height = sps.height
        let sar = sps.sampleAspectRatio
        if let sar, sar.width > 0, sar.height > 0 {
            pixelAspectRatio = MP4PixelAspectRatio(horizontalSpacing: UInt32(clamping: sar.width),
                                                   verticalSpacing: UInt32(clamping: sar.height))
        } else {
            pixelAspectRatio = MP4PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1)
        }
        colour = MP4ColourInformation(sps.colorDescription ?? .unspecified)
        originalFormat = nil
    }

    /// True for an H.264 entry this module reads and writes: `avc1` or `avc3` with an avcC.
    public var isH264: Bool { (format == "avc1" || format == "avc3") && decoderConfiguration != nil }

    /// The RFC 6381 `CODECS` string (`avc1.64001f`) for HLS and DASH manifests, from the avcC
    /// record's profile, compatibility and level bytes (the H264 module's `ProfileLevel`); nil
    /// without an avcC record.
    public var codecString: String? {
        guard let c = decoderConfiguration else { return nil }
        let bytes = ProfileLevel(profileIDC: c.profileIndication, constraintFlags: c.profileCompatibility,
                                 levelIDC: c.levelIndication)
        return bytes.codecString(sampleEntry: format == "avc3" ? .avc3 : .avc1)
    }
}

/// The `pasp` box: the shape of one pixel, `hSpacing:vSpacing`.
public struct MP4PixelAspectRatio: Hashable, Sendable {
    /// `hSpacing`.
    public var horizontalSpacing: UInt32
    /// `vSpacing`.
    public var verticalSpacing: UInt32

    /// Creates a ratio.
    public init(horizontalSpacing: UInt32, verticalSpacing: UInt32) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }
}

/// The `colr` box: `nclx` colour information (ISO/IEC 23091-2 code points, as in the H.264
/// VUI), or another colour type kept as its bytes (`rICC`, `prof`, QuickTime's `nclc`).
public struct MP4ColourInformation: Hashable, Sendable {
    /// `colour_type`: `nclx` for the fields below.
    public var colourType: MP4FourCC
    /// `colour_primaries`.
    public var colourPrimaries: UInt16
    /// `transfer_characteristics`.
    public var transferCharacteristics: UInt16
    /// `matrix_coefficients`.
    public var matrixCoefficients: UInt16
    /// `full_range_flag`.
    public var fullRange: Bool
    /// The payload after `colour_type` for a type other than `nclx` (an ICC profile).
    public var otherPayload: [UInt8]

    /// Creates `nclx` colour information.
    public init(colourPrimaries: UInt16, transferCharacteristics: UInt16, matrixCoefficients: UInt16, fullRange: Bool) {
        colourType = "nclx"
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
        otherPayload = []
    }

    /// Creates `nclx` colour information from a colour description (the SPS's, an encoder's):
    /// the same code points and range.
    public init(_ description: ColorDescription) {
        self.init(colourPrimaries: UInt16(description.primaries), transferCharacteristics: UInt16(description.transferCharacteristics),
                  matrixCoefficients: UInt16(description.matrixCoefficients), fullRange: description.fullRange)
    }

    /// The colour description this box gives: the code points and range of an `nclx` box (or
    /// QuickTime's `nclc`, whose range is always video range); nil for another colour type or
    /// a code point above 255, which the H.264 VUI cannot carry.
    public var colorDescription: ColorDescription? {
        guard colourType == "nclx" || colourType == "nclc",
              let p = UInt8(exactly: colourPrimaries), let t = UInt8(exactly: transferCharacteristics),
              let m = UInt8(exactly: matrixCoefficients) else { return nil }
        return ColorDescription(primaries: p, transferCharacteristics: t, matrixCoefficients: m, fullRange: fullRange)
    }

    /// Creates colour information of another type from its payload.
    public init(colourType: MP4FourCC, payload: [UInt8]) {
        self.colourType = colourType
        colourPrimaries = 2
        transferCharacteristics = 2
        matrixCoefficients = 2
        fullRange = false
        otherPayload = payload
    }
}
