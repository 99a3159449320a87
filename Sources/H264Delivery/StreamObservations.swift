import H264

/// What a ``StreamChecker`` learnt of a stream beyond its violations: the facts that decide
/// which fixes are safe (``DeliveryProfile/fixPlan(for:)``).
public struct StreamObservations: Hashable, Sendable {
    /// The most frames any picture was presented after while decoded before them (0: output
    /// order is decoding order). Frame pictures only.
    public var maximumReorderDepth = 0
    /// Some picture has B slices.
    public var hasBSlices = false
    /// Some SPS allows field pictures (`frame_mbs_only_flag` 0), or a picture is a field.
    public var hasFieldPictures = false
    /// Some PPS uses slice groups or redundant pictures (outside Constrained Baseline, A.2.1.1).
    public var hasSliceGroupsOrRedundantPictures = false
    /// Some picture's slices do not come in increasing `first_mb_in_slice` (arbitrary slice
    /// order, outside Constrained Baseline).
    public var hasArbitrarySliceOrder = false
    /// The lowest level that holds every SPS used (`SequenceParameterSet/minimumLevel`).
    public var requiredLevel: ProfileLevel.Level?
    /// The largest `max_num_ref_frames` of the SPSs used.
    public var largestMaxNumRefFrames = 0
    /// The smallest `MaxDpbFrames` of the SPSs used (nil before one is).
    public var smallestMaxDpbFrames: Int?
    /// The `profile_idc` of every SPS used.
    public var profileIDCs: Set<UInt8> = []
    /// The largest SEI NAL unit, in bytes.
    public var largestSEIBytes = 0
    /// The largest STAP-A the parameter sets in force needed (RTP header included).
    public var parameterSetPacketBytes = 0

    /// The profile and level bytes of the SPSs used (the first
    /// ``StreamObservations/maximumProfileLevels``).
    public var profileLevels: Set<ProfileLevel> = []
    /// How many distinct profile and level bytes ``profileLevels`` keeps.
    public static let maximumProfileLevels = 32

    /// Creates empty observations.
    public init() {}
}
