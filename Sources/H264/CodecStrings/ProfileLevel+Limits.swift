extension ProfileLevel.Level {
    /// The limits of one level, a row of Table A-1.
    public struct Limits: Hashable, Sendable {
        /// `MaxMBPS`: macroblocks per second.
        public var maxMacroblocksPerSecond: Int
        /// `MaxFS`: macroblocks per frame.
        public var maxFrameSize: Int
        /// `MaxDpbMbs`: macroblocks the decoded picture buffer holds.
        public var maxDpbMbs: Int
        /// `MaxBR`: VCL bit rate in units of 1,000 bit/s (`cpbBrVclFactor` 1,000: the Baseline,
        /// Main and Extended profiles; High is 1.25 times this, Table A-2).
        public var maxBitRate: Int
    }

    /// The levels of Table A-1 in order, level 1b (written as `level_idc` 9) included.
    public static let all: [ProfileLevel.Level] = [10, 9, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62]
        .map { ProfileLevel.Level(levelIDC: $0, isLevel1b: $0 == 9) }

    /// The level of Table A-1 that `text` names: as the table writes it (`1b`, `3.1`, `4`,
    /// also `4.0`) or as its `level_idc` (`31`, `40`; `9` is level 1b, `11` level 1.1). The
    /// one level parser of the package (the encoder's settings, the header editor's
    /// `--level`).
    /// - Returns: nil for anything else (`3.3`, `70`, `auto`).
    public init?(_ text: some StringProtocol) {
        let levels = Self.all
        if let level = levels.first(where: { $0.name == text }) { self = level; return }
        let idc: Int? = text.hasSuffix(".0") ? Int(text.dropLast(2)).map { $0 &* 10 } : Int(text)
        guard let idc, let level = levels.first(where: { Int($0.levelIDC) == idc }) else { return nil }
        self = level
    }

    /// The level's row of Table A-1, or nil for a `level_idc` the table does not list.
    public var limits: Limits? {
        func row(_ mbps: Int, _ fs: Int, _ dpb: Int, _ br: Int) -> Limits {
            Limits(maxMacroblocksPerSecond: mbps, maxFrameSize: fs, maxDpbMbs: dpb, maxBitRate: br)
        }
        if isLevel1b { return row(1485, 99, 396, 128) }
        switch levelIDC {
        case 10: return row(1485, 99, 396, 64)
        case 11: return row(3000, 396, 900, 192)
        case 12: return row(6000, 396, 2376, 384)
        case 13: return row(11880, 396, 2376, 768)
        case 20: return row(11880, 396, 2376, 2000)
        case 21: return row(19800, 792, 4752, 4000)
        case 22: return row(20250, 1620, 8100, 4000)
        case 30: return row(40500, 1620, 8100, 10000)
        case 31: return row(108_000, 3600, 18000, 14000)
        case 32: return row(216_000, 5120, 20480, 20000)
        case 40: return row(245_760, 8192, 32768, 20000)
        case 41: return row(245_760, 8192, 32768, 50000)
        case 42: return row(522_240, 8704, 34816, 50000)
        case 50: return row(589_824, 22080, 110_400, 135_000)
        case 51: return row(983_040, 36864, 184_320, 240_000)
        case 52: return row(2_073_600, 36864, 184_320, 240_000)
        case 60: return row(4_177_920, 139_264, 696_320, 240_000)
        case 61: return row(8_355_840, 139_264, 696_320, 480_000)
        case 62: return row(16_711_680, 139_264, 696_320, 800_000)
        default: return nil
        }
    }
}
