/// One coded `scaling_list()` (7.3.2.1.1.1): the `delta_scale` values as they appear in the
/// bitstream, in zig-zag order. Coding stops early when the running scale reaches 0.
public struct ScalingList: Sendable, Hashable {
    /// The coded `delta_scale` values (-128...127). The last one brings the running scale to 0
    /// when the list ends early.
    public var deltaScales: [Int8] = []

    /// Creates a list from its coded deltas.
    public init(deltaScales: [Int8] = []) { self.deltaScales = deltaScales }

    /// `useDefaultScalingMatrixFlag` (7.4.2.1.1.1): the first delta brings the scale to 0.
    public var useDefaultScalingMatrix: Bool {
        guard let first = deltaScales.first else { return false }
        return (8 &+ Int(first) &+ 256) % 256 == 0  // small values: no overflow
    }

    /// The list's values in zig-zag order for a list of `size` (16 or 64) entries, or nil when
    /// the default matrix is to be used.
    public func values(size: Int) -> [UInt8]? {
        if useDefaultScalingMatrix { return nil }
        var out = [UInt8]()
        out.reserveCapacity(size)
        var last = 8
        var next = 8
        for j in 0..<size {
            if next != 0, j < deltaScales.count { next = (last &+ Int(deltaScales[j]) &+ 256) % 256 }
            let v = next == 0 ? last : next
            out.append(UInt8(truncatingIfNeeded: v))
            last = v
        }
        return out
    }

    /// `scaling_list(..., sizeOfScalingList, ...)`; element names as FFmpeg prints them
    /// (`delta_scale[j]`).
    public mutating func code<C: SyntaxCoder>(_ c: inout C, size: Int) throws(H264Error) {
        if c.isReading { deltaScales = [] }
        var scale = 8
        var j = 0
        while j < size {
            var d: Int8 = 0
            if !c.isReading {
                guard j < deltaScales.count else { throw .outOfRange("delta_scale count", Int64(deltaScales.count)) }
                d = deltaScales[j]
            }
            try c.se(&d, SyntaxName("delta_scale", j), -128...127)
            if c.isReading { deltaScales.append(d) }
            scale = (scale &+ Int(d) &+ 256) % 256  // 0...255 plus -128...127 plus 256: no overflow
            j &+= 1
            if scale == 0 { break }
        }
        if !c.isReading, deltaScales.count != j { throw .outOfRange("delta_scale count", Int64(deltaScales.count)) }
    }
}

/// The scaling matrix of an SPS (`seq_scaling_list_present_flag[i]`) or PPS
/// (`pic_scaling_list_present_flag[i]`): up to 12 lists, 6 of 4x4 then 2 or 6 of 8x8.
public struct ScalingMatrix: Sendable, Hashable {
    /// Which lists are coded, by index i (0...11).
    public var present: [Bool] = []
    /// The coded lists, by index i; an entry is meaningful only when `present[i]`.
    public var lists: [ScalingList] = []

    /// Creates an empty matrix.
    public init() {}

    /// Codes `count` list slots with the flag `flagName[i]`.
    mutating func code<C: SyntaxCoder>(_ c: inout C, count: Int, flagName: StaticString) throws(H264Error) {
        try c.prepare(&present, count: count, limit: 12, fill: false, SyntaxName(flagName))
        try c.prepare(&lists, count: count, limit: 12, fill: ScalingList(), SyntaxName(flagName))
        for i in 0..<count {
            try c.flag(&present[i], SyntaxName(flagName, i))
            if present[i] { try lists[i].code(&c, size: i < 6 ? 16 : 64) }
        }
    }

    /// Flat_4x4_16 / Flat_8x8_16: every entry 16 (no scaling matrix at all).
    public static func flat(size: Int) -> [UInt8] { Array(repeating: 16, count: size) }

    /// Table 7-3, Default_4x4_Intra, zig-zag order.
    public static let default4x4Intra: [UInt8] = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42]
    /// Table 7-3, Default_4x4_Inter, zig-zag order.
    public static let default4x4Inter: [UInt8] = [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34]
    /// Table 7-4, Default_8x8_Intra, zig-zag order.
    public static let default8x8Intra: [UInt8] = [
        6, 10, 10, 13, 11, 13, 16, 16, 16, 16, 18, 18, 18, 18, 18, 23, 23, 23, 23, 23, 23, 25, 25, 25, 25, 25, 25, 25,
        27, 27, 27, 27, 27, 27, 27, 27, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31, 31, 33, 33, 33, 33, 33, 36, 36,
        36, 36, 38, 38, 38, 40, 40, 42]
    /// Table 7-4, Default_8x8_Inter, zig-zag order.
    public static let default8x8Inter: [UInt8] = [
        9, 13, 13, 15, 13, 15, 17, 17, 17, 17, 19, 19, 19, 19, 19, 21, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22,
        24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27, 27, 27, 28, 28, 28, 28, 28, 30, 30,
        30, 30, 32, 32, 32, 33, 33, 35]

    /// The default list for index i (Table 7-2): intra for 0-2, 6, 8, 10; inter otherwise.
    static func defaultList(_ i: Int) -> [UInt8] {
        if i < 6 { return i < 3 ? default4x4Intra : default4x4Inter }
        return i % 2 == 0 ? default8x8Intra : default8x8Inter
    }

    /// The 12 resolved lists (zig-zag order) after the fall-back rules of Table 7-2.
    ///
    /// - Parameter fallback: nil for fall-back rule A (an SPS: the first list of each kind falls
    ///   back to the default); for rule B (a PPS) the SPS's resolved lists, to which the first
    ///   list of each kind falls back.
    /// - Returns: 6 lists of 16 values then 6 of 64 (indices beyond the coded count follow the
    ///   same rules).
    public func resolved(fallback: [[UInt8]]? = nil) -> [[UInt8]] {
        var out: [[UInt8]] = []
        out.reserveCapacity(12)
        for i in 0..<12 {
            let size = i < 6 ? 16 : 64
            if i < present.count, present[i], i < lists.count {
                out.append(lists[i].values(size: size) ?? ScalingMatrix.defaultList(i))
                continue
            }
            // Not present: the first 4x4 intra/inter list (0, 3) and the first 8x8 lists
            // (6, 7) fall back to the default (A) or the SPS (B); the others to the list of
            // the same kind before them (i - 1 for 4x4, i - 2 for 8x8).
            if i == 0 || i == 3 || i == 6 || i == 7 {
                if let fb = fallback, i < fb.count { out.append(fb[i]) } else { out.append(ScalingMatrix.defaultList(i)) }
            } else {
                out.append(out[i < 6 ? i &- 1 : i &- 2])
            }
        }
        return out
    }
}
