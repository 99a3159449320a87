extension ProfileLevel {
    /// A level of Table A-1, ordered: 1 < 1b < 1.1 < ... < 6.2; level 1b is one level however
    /// it is written.
    public struct Level: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// `level_idc` as written (11 or 9 for level 1b).
        public var levelIDC: UInt8
        /// True for level 1b.
        public var isLevel1b: Bool

        /// Creates a level from `level_idc` and whether it stands for level 1b.
        public init(levelIDC: UInt8, isLevel1b: Bool = false) {
            self.levelIDC = levelIDC
            self.isLevel1b = isLevel1b
        }

        /// The level as a number: `level_idc` / 10, and 1.05 for level 1b (between 1 and 1.1).
        public var number: Double { isLevel1b ? 1.05 : Double(levelIDC) / 10 }

        /// The level as Table A-1 writes it: "1b", "3.1", "4".
        public var name: String {
            if isLevel1b { return "1b" }
            let major = levelIDC / 10, minor = levelIDC % 10
            return minor == 0 ? "\(major)" : "\(major).\(minor)"
        }

        /// ``name``.
        public var description: String { name }

        /// Level 1b ranks between `level_idc` 10 and 11.
        private var rank: Int { isLevel1b ? 21 : Int(levelIDC) * 2 }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }

        /// Equal levels: level 1b written as `level_idc` 9 equals level 1b written as 11.
        public static func == (a: Level, b: Level) -> Bool { a.rank == b.rank }

        public func hash(into hasher: inout Hasher) { hasher.combine(rank) }
    }

    /// True for level 1b: `level_idc` 9, or 11 with `constraint_set3_flag` in the Baseline,
    /// Main and Extended profiles (A.3.1, A.3.2).
    public var isLevel1b: Bool {
        levelIDC == 9 || (levelIDC == 11 && constraintSet(3) && (profileIDC == 66 || profileIDC == 77 || profileIDC == 88))
    }

    /// The level, level 1b recognised.
    public var level: Level { Level(levelIDC: levelIDC, isLevel1b: isLevel1b) }

    /// The same profile at `level`, written as the profile requires: level 1b as `level_idc`
    /// 11 with `constraint_set3_flag` in the Baseline, Main and Extended profiles and as 9 in
    /// the others; `constraint_set3_flag` cleared in those three profiles for any other level.
    public func replacingLevel(_ level: Level) -> ProfileLevel {
        var out = self
        let legacy = profileIDC == 66 || profileIDC == 77 || profileIDC == 88
        if legacy { out.constraintFlags &= ~0x10 }  // constraint_set3_flag means level 1b there
        if level.isLevel1b {
            out.levelIDC = legacy ? 11 : 9
            if legacy { out.constraintFlags |= 0x10 }
        } else {
            out.levelIDC = level.levelIDC
        }
        return out
    }

    /// The profile's name (Annex A, G, H, I) by `profile_idc`, refined by the constraint flags
    /// as FFmpeg and GStreamer report it: Constrained Baseline is `profile_idc` 66 with
    /// `constraint_set1_flag`. A Main or Extended stream whose flags say it also conforms to
    /// Constrained Baseline keeps its own name here; ``sdpProfile`` groups it by RFC 6184
    /// Table 5.
    public var profileName: String {
        switch profileIDC {
        case 66: return constraintSet(1) ? "Constrained Baseline" : "Baseline"
        case 77: return "Main"
        case 88: return "Extended"
        case 100:
            if constraintSet(4) && constraintSet(5) { return "Constrained High" }
            return constraintSet(4) ? "Progressive High" : "High"
        case 110: return constraintSet(3) ? "High 10 Intra" : (constraintSet(4) ? "Progressive High 10" : "High 10")
        case 122: return constraintSet(3) ? "High 4:2:2 Intra" : "High 4:2:2"
        case 244: return constraintSet(3) ? "High 4:4:4 Intra" : "High 4:4:4 Predictive"
        case 44: return "CAVLC 4:4:4 Intra"
        case 83: return "Scalable Baseline"
        case 86: return "Scalable High"
        case 118: return "Multiview High"
        case 128: return "Stereo High"
        case 138: return "Multiview Depth High"
        case 139: return "Enhanced Multiview Depth High"
        case 134: return "MFC High"
        case 135: return "MFC Depth High"
        default: return "Unknown (\(profileIDC))"
        }
    }
}
