/// What a player needs to know about one sample: the 32-bit `sample_flags` of ISO/IEC
/// 14496-12 8.8.3.1 (in `trex`, `tfhd` and `trun`), whose dependency fields are also the
/// `sdtp` byte of a progressive file (8.6.4), and the sync flag that `stss` carries.
///
/// Players read them differently: Chromium treats a sample as a keyframe only when it is sync
/// and its `sample_depends_on` is not 1, and rejects `sample_depends_on` 3; FFmpeg's muxer
/// writes `0x02000000` for sync samples and `0x01010000` for the others. The adapters from the
/// core's access units (``MP4SampleBuilder``, ``init(_:isSync:)``) write
/// the same.
public struct MP4SampleFlags: Hashable, Sendable, CustomStringConvertible {
    /// A two-bit dependency value of `sample_depends_on`, `sample_is_depended_on` and
    /// `sample_has_redundancy`.
    public struct Dependency: Hashable, Sendable, CustomStringConvertible {
        /// The two bits, 0...3.
        public let rawValue: UInt8

        /// Creates a value from its two bits (higher bits are dropped).
        public init(rawValue: UInt8) { self.rawValue = rawValue & 3 }

        /// 0: not known.
        public static let unknown = Dependency(rawValue: 0)
        /// 1: yes (depends on others / is depended on / has redundant coding).
        public static let yes = Dependency(rawValue: 1)
        /// 2: no.
        public static let no = Dependency(rawValue: 2)
        /// 3: reserved; some players reject a sample that carries it.
        public static let reserved = Dependency(rawValue: 3)

        public var description: String { ["unknown", "yes", "no", "reserved"][Int(rawValue)] }
    }

    /// The sample is a sync sample (`sample_is_non_sync_sample` 0; listed in `stss`): decoding
    /// can start here.
    public var isSync: Bool
    /// `sample_depends_on`: whether the sample is predicted from others.
    public var dependsOn: Dependency
    /// `sample_is_depended_on`: whether other samples are predicted from it (`no` means it
    /// can be dropped).
    public var isDependedOn: Dependency
    /// `sample_has_redundancy`.
    public var hasRedundancy: Dependency
    /// `is_leading`, 0...3 (3: a leading sample that can be decoded).
    public var isLeading: UInt8
    /// `sample_padding_value`, 0...7.
    public var paddingValue: UInt8
    /// `sample_degradation_priority`.
    public var degradationPriority: UInt16

    /// Creates flags.
    public init(isSync: Bool, dependsOn: Dependency = .unknown, isDependedOn: Dependency = .unknown,
                hasRedundancy: Dependency = .unknown, isLeading: UInt8 = 0, paddingValue: UInt8 = 0,
                degradationPriority: UInt16 = 0) {
        self.isSync = isSync
        self.dependsOn = dependsOn
        self.isDependedOn = isDependedOn
        self.hasRedundancy = hasRedundancy
        self.isLeading = isLeading & 3
        self.paddingValue = paddingValue & 7
        self.degradationPriority = degradationPriority
    }

    /// A sync sample as FFmpeg writes one: depends on no other sample (`0x02000000`).
    public static let sync = MP4SampleFlags(isSync: true, dependsOn: .no)
    /// A non-sync sample as FFmpeg writes one: depends on others (`0x01010000`).
    public static let nonSync = MP4SampleFlags(isSync: false, dependsOn: .yes)

    /// Decodes a 32-bit `sample_flags` value.
    public init(rawValue v: UInt32) {
        isLeading = UInt8(truncatingIfNeeded: v >> 26) & 3
        dependsOn = Dependency(rawValue: UInt8(truncatingIfNeeded: v >> 24))
        isDependedOn = Dependency(rawValue: UInt8(truncatingIfNeeded: v >> 22))
        hasRedundancy = Dependency(rawValue: UInt8(truncatingIfNeeded: v >> 20))
        paddingValue = UInt8(truncatingIfNeeded: v >> 17) & 7
        isSync = v & 0x1_0000 == 0
        degradationPriority = UInt16(truncatingIfNeeded: v)
    }

    /// The 32-bit `sample_flags` value.
    public var rawValue: UInt32 {
        UInt32(isLeading & 3) << 26 | UInt32(dependsOn.rawValue) << 24 | UInt32(isDependedOn.rawValue) << 22
            | UInt32(hasRedundancy.rawValue) << 20 | UInt32(paddingValue & 7) << 17 | (isSync ? 0 : 0x1_0000)
            | UInt32(degradationPriority)
    }

    /// The `sdtp` byte: `is_leading`, `sample_depends_on`, `sample_is_depended_on`,
    /// `sample_has_redundancy`, two bits each.
    public var dependencyByte: UInt8 {
        (isLeading & 3) << 6 | dependsOn.rawValue << 4 | isDependedOn.rawValue << 2 | hasRedundancy.rawValue
    }

    /// Sets the dependency fields from an `sdtp` byte.
    public mutating func setDependencies(fromByte b: UInt8) {
        isLeading = b >> 6
        dependsOn = Dependency(rawValue: b >> 4)
        isDependedOn = Dependency(rawValue: b >> 2)
        hasRedundancy = Dependency(rawValue: b)
    }

    /// A keyframe as Chromium counts one: sync, and not marked as depending on others.
    public var isKeyframe: Bool { isSync && dependsOn != .yes }

    public var description: String {
        "\(isSync ? "sync" : "non-sync") depends_on=\(dependsOn) depended_on=\(isDependedOn)"
    }
}
