/// One access unit (7.4.1.2): the NAL units of one primary coded picture, with the parameter
/// sets, SEI and delimiters that precede it, and what a muxer needs to know about it.
public struct AccessUnit: Sendable {
    /// The NAL units in decoding order (views into the caller's buffers).
    public var nalUnits: [NALUnit]
    /// Index in decoding order, from 0.
    public var index: Int
    /// Byte offset in the input of the access unit's first byte: the start code (with its
    /// `zero_byte`) before its first NAL unit; 0 for the first access unit, so that leading
    /// zero bytes count with it. Nil when the input had no offsets (NAL units pushed one by one).
    public var byteOffset: Int?
    /// What a container needs to know: sync, random access, dependencies.
    public var flags: AccessUnitFlags
    /// The coding types of the primary coded picture's slices, in order (`slice_type % 5`).
    public var sliceTypes: [SliceType.Kind]
    /// `frame_num` of the primary coded picture.
    public var frameNum: Int
    /// The picture's structure.
    public var structure: PictureStructure
    /// Picture order count (`PicOrderCnt(CurrPic)`, 8.2.1), or nil when the picture's slice
    /// header could not be parsed.
    public var poc: Int64?
    /// Presentation timestamp in ``timeBase`` units, once assigned.
    public var pts: Int64?
    /// Decode timestamp in ``timeBase`` units, once assigned.
    public var dts: Int64?
    /// Duration in ``timeBase`` units, once assigned.
    public var duration: Int64?
    /// The unit of ``pts``, ``dts`` and ``duration``, in seconds.
    public var timeBase: TimeBase?
    /// Set on the first access unit after a parameter set changed (resolution or profile
    /// change mid-stream): the parameter sets that changed, and those now in force (storage
    /// shared with the other access units' format changes).
    public var formatChange: FormatChange?
    /// The picture is an IDR picture or has `memory_management_control_operation` 5: picture
    /// order counts start again, and every earlier picture is presented before it.
    public var startsPOCPeriod = false
    /// Problems met while assembling this access unit that did not stop assembly (a slice
    /// header that could not be parsed, for example): at most
    /// ``AccessUnitAssembler/maximumDiagnostics``, later ones counted in
    /// ``droppedDiagnosticCount``.
    public var diagnostics: [H264Error]
    /// Problems not kept in ``diagnostics`` because it was full.
    public var droppedDiagnosticCount = 0
    /// The `offset` the assembler was given with the access unit's first NAL unit (unlike
    /// ``byteOffset``, also for the first access unit).
    var startOffset: Int?

    /// Creates an access unit.
    public init(nalUnits: [NALUnit], index: Int, flags: AccessUnitFlags = AccessUnitFlags(), sliceTypes: [SliceType.Kind] = [],
                frameNum: Int = 0, structure: PictureStructure = .frame, poc: Int64? = nil) {
        self.nalUnits = nalUnits
        self.index = index
        self.flags = flags
        self.sliceTypes = sliceTypes
        self.frameNum = frameNum
        self.structure = structure
        self.poc = poc
        self.diagnostics = []
    }

    /// Sets every stored value in place (the assembler's, in one step), without timestamps:
    /// the arrays are traded with the caller's (which get this access unit's former ones), so
    /// nothing is copied and no reference is counted.
    mutating func fill(nalUnits: inout [NALUnit], index: Int, byteOffset: Int?, flags: AccessUnitFlags,
                       sliceTypes: inout [SliceType.Kind], frameNum: Int, structure: PictureStructure, poc: Int64?,
                       formatChange: FormatChange?, startsPOCPeriod: Bool, diagnostics: inout [H264Error],
                       droppedDiagnosticCount: Int, startOffset: Int?) {
        swap(&self.nalUnits, &nalUnits)
        self.index = index
        self.byteOffset = byteOffset
        self.flags = flags
        swap(&self.sliceTypes, &sliceTypes)
        self.frameNum = frameNum
        self.structure = structure
        self.poc = poc
        pts = nil
        dts = nil
        duration = nil
        timeBase = nil
        self.formatChange = formatChange
        self.startsPOCPeriod = startsPOCPeriod
        swap(&self.diagnostics, &diagnostics)
        self.droppedDiagnosticCount = droppedDiagnosticCount
        self.startOffset = startOffset
    }

    /// Creates an empty access unit (no NAL units, index -1): what
    /// ``AccessUnitParser/next(into:)`` fills.
    public init() {
        self.init(nalUnits: [], index: -1)
    }

    /// Bytes of all NAL units (without framing).
    public var payloadSize: Int { nalUnits.reduce(0) { $0 &+ $1.count } }

    /// The `nal_unit_type` of each NAL unit.
    public var nalTypes: [NALUnitType] { nalUnits.map(\.type) }

    /// Slice type letters as `h264 inspect` prints them: `I`, `P`, `B`, `SI`, `SP`.
    public var sliceTypeLetters: [String] {
        sliceTypes.map { ["P", "B", "I", "SP", "SI"][Int($0.rawValue)] }
    }

    /// True for an IDR access unit or one that starts random access with a recovery point
    /// SEI: the same as ``AccessUnitSample/isRandomAccessPoint`` (not
    /// ``AccessUnitSample/isSyncSample``, which is what `EncodedFrame.isKeyframe` meant).
    @available(*, deprecated, renamed: "isRandomAccessPoint",
               message: "means IDR or recovery point: use isRandomAccessPoint, or isSyncSample for IDR only")
    public var isKeyframe: Bool { isRandomAccessPoint }
}

/// Frame, or which field, an access unit's primary coded picture is.
public enum PictureStructure: Sendable, Hashable {
    /// A frame (progressive, or MBAFF when the SPS allows it).
    case frame
    /// A top field.
    case topField
    /// A bottom field.
    case bottomField
}

/// A rational time unit: `numerator / denominator` seconds.
public struct TimeBase: Sendable, Hashable, CustomStringConvertible {
    /// Seconds numerator.
    public var numerator: Int64
    /// Seconds denominator.
    public var denominator: Int64

    /// Creates a time base of `numerator / denominator` seconds.
    public init(numerator: Int64, denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Converts `value` in this time base to seconds.
    public func seconds(_ value: Int64) -> Double {
        Double(value) * Double(numerator) / Double(denominator)
    }

    public var description: String { "\(numerator)/\(denominator)" }
}

/// The flags a muxer needs for one access unit, named as CoreMedia users know them.
public struct AccessUnitFlags: Sendable, Hashable {
    /// An IDR picture: decoding can start here with nothing before it
    /// (`kCMSampleAttachmentKey_NotSync` false).
    public var isSync = false
    /// A recovery point SEI makes this a random access point without IDR (open GOP, periodic
    /// intra refresh): CoreMedia's partial sync.
    public var isRandomAccess = false
    /// `recovery_frame_cnt` of the recovery point SEI, when there is one.
    public var recoveryFrameCount: Int?
    /// The picture predicts from other pictures (any P, B or SP slice)
    /// (`kCMSampleAttachmentKey_DependsOnOthers`).
    public var dependsOnOthers = false
    /// Some VCL NAL unit has nonzero `nal_ref_idc`: other pictures may predict from this one
    /// (`kCMSampleAttachmentKey_IsDependedOnByOthers`).
    public var isDependedOnByOthers = false
    /// Every slice is I or SI but the picture is neither IDR nor marked by a recovery point.
    public var isIntraOnlyWithoutIDR = false
    /// The access unit carries SPS or PPS NAL units in band.
    public var hasParameterSets = false
    /// The access unit has no coded picture (parameter sets or SEI at the end of a stream).
    public var hasNoPicture = false

    /// Creates flags with every value false.
    public init() {}

    /// Not depended on by other pictures: a player or packetiser may drop it
    /// (`sample_is_depended_on` 2 in MP4's `sdtp`).
    public var isDiscardable: Bool { !isDependedOnByOthers && !hasNoPicture }
}
