import H264

/// Conversion of packed RGB frames (BGRA, ARGB) to the 4:2:0 YCbCr layouts encoders take
/// (I420, NV12), for BT.601 or BT.709, limited or full range.
///
/// The arithmetic is 16-bit fixed point, 16 pixels of two rows at a time in SIMD lanes, built
/// on "multiply and keep the high half" (one instruction on every SIMD ISA):
/// - luma: `(R << 8) * cR >> 16` with `cR` the coefficient scaled by 2^16 gives R * cR in
///   1/256 code values; three such terms, the offset and a rounding constant, shifted by 8;
/// - chroma: each pair of rows yields one chroma row, from the sums of the four RGB pixels of
///   each 2x2 block (0...1020), `(sum << 5) * c >> 16` with `c` signed and scaled by 2^15
///   gives the average times c in 1/64 code values.
/// Each term truncates by less than 1/64 of a code value, so the result is within one code
/// value of the same conversion in floating point (the tests check every 17th RGB value and
/// random images). Odd widths and heights are accepted: the last column or row is paired with
/// itself.
public struct ColorConversion: Sendable, Hashable {
    /// The colour matrix.
    public let matrix: ColorMatrix
    /// The output range.
    public let range: ColorRange

    // Luma coefficients scaled by 2^16 (all below 1), and the offset in 1/256 code values plus
    // the rounding half: 16 * 256 + 128 for limited range.
    @usableFromInline let yR, yG, yB, yBias: UInt16
    // Chroma coefficients scaled by 2^15 (|c| <= 0.5).
    @usableFromInline let uR, uG, uB, vR, vG, vB: Int16

    /// Creates a conversion.
    public init(matrix: ColorMatrix = .bt601, range: ColorRange = .limited) {
        self.matrix = matrix
        self.range = range
        let kr = matrix.kr, kb = matrix.kb, kg = 1 - kr - kb
        let ys = range == .limited ? 219.0 / 255.0 : 1.0
        let cs = range == .limited ? 224.0 / 255.0 : 1.0
        func y16(_ x: Double) -> UInt16 { UInt16((x * 65536).rounded()) }
        func c15(_ x: Double) -> Int16 { Int16((x * 32768).rounded()) }
        yR = y16(ys * kr); yG = y16(ys * kg); yB = y16(ys * kb)
        yBias = (range == .limited ? 16 << 8 : 0) + 128
        uR = c15(-cs * kr / (2 * (1 - kb))); uG = c15(-cs * kg / (2 * (1 - kb))); uB = c15(cs / 2)
        vR = c15(cs / 2); vG = c15(-cs * kg / (2 * (1 - kr))); vB = c15(-cs * kb / (2 * (1 - kr)))
    }

    /// Chroma offset and rounding in 1/64 code values: 128 * 64 + 32.
    @usableFromInline static let cBias: Int16 = 128 * 64 + 32

    /// Converts a BGRA or ARGB frame to a new I420 or NV12 frame (tightly packed planes).
    ///
    /// - Parameters:
    ///   - source: a `PixelFormat.bgra` or `PixelFormat.argb` frame.
    ///   - format: `PixelFormat.i420` or `PixelFormat.nv12`.
    /// - Returns: the converted frame, with the source's timestamp and orientation.
    /// - Throws: `H264VideoError.Code.unsupported` for other formats.
    /// - Complexity: O(width x height).
    public func convert(_ source: VideoFrame, to format: PixelFormat) throws(H264VideoError) -> VideoFrame {
        var out = try H264VideoError.catchingH264("converted frame") { () throws(H264Error) in
            try VideoFrame(width: source.width, height: source.height, format: format, pts: source.pts, timescale: source.timescale)
        }
        out.orientation = source.orientation
        try convert(source, into: &out)
        return out
    }

    /// Converts a BGRA or ARGB frame into an existing I420 or NV12 frame of the same size,
    /// keeping its strides; reusing the destination avoids an allocation per frame.
    ///
    /// - Throws: `H264VideoError.Code.unsupported` for other formats,
    ///   `H264VideoError.Code.invalidArgument` when the sizes differ.
    /// - Complexity: O(width x height).
    public func convert(_ source: VideoFrame, into destination: inout VideoFrame) throws(H264VideoError) {
        try convert(source, into: &destination, vectorized: Self.vectorizedByDefault)
    }

    /// ``convert(_:into:)`` with the SIMD loop or the scalar one (the tests compare the two).
    func convert(_ source: VideoFrame, into destination: inout VideoFrame, vectorized: Bool) throws(H264VideoError) {
        guard source.format.isRGB else {
            throw H264VideoError.invalid(.unsupported, "colour conversion from \(source.format) is not supported")
        }
        guard destination.format == .i420 || destination.format == .nv12 else {
            throw H264VideoError.invalid(.unsupported, "colour conversion to \(destination.format) is not supported")
        }
        guard source.width == destination.width, source.height == destination.height else {
            throw H264VideoError.invalid(.invalidArgument, "sizes differ: \(source.width)x\(source.height) -> \(destination.width)x\(destination.height)")
        }
        // Byte order in a little-endian 32-bit load: BGRA = B | G<<8 | R<<16; ARGB = R<<8 | G<<16 | B<<24.
        let shifts: (r: UInt32, g: UInt32, b: UInt32) = source.format == .bgra ? (16, 8, 0) : (8, 16, 24)
        let nv12 = destination.format == .nv12
        let yStride = destination.planes[0].bytesPerRow
        let cStride = destination.planes[1].bytesPerRow
        let vStride = nv12 ? 0 : destination.planes[2].bytesPerRow
        let sStride = source.planes[0].bytesPerRow
        let layout = Layout(width: source.width, height: source.height, srcStride: sStride,
                            yStride: yStride, uStride: cStride, vStride: vStride, shifts: shifts, nv12: nv12)
        source.planes[0].bytes.withUnsafeBytes { src in
            destination.withMutablePlanes { planes in
                let y = UnsafeMutableRawBufferPointer(planes[0]), u = UnsafeMutableRawBufferPointer(planes[1])
                run(layout, src: src, y: y, u: u, v: nv12 ? u : UnsafeMutableRawBufferPointer(planes[2]),
                    vectorized: vectorized)
            }
        }
    }

    /// Whether ``convert(_:into:)`` runs the SIMD loop. Unoptimised (debug) builds do not: there
    /// the generic `SIMD8` operations run lane by lane through protocol witnesses, about 60 times
    /// slower than optimised code, while the scalar loop over the same integer arithmetic is
    /// much faster than that. Both loops give the same bytes (tested).
    #if DEBUG
    static let vectorizedByDefault = false
    #else
    static let vectorizedByDefault = true
    #endif

    @usableFromInline struct Layout {
        let width, height, srcStride, yStride, uStride, vStride: Int
        let shifts: (r: UInt32, g: UInt32, b: UInt32)
        let nv12: Bool
    }

    // The VideoFrame initialisers have checked that every row fits in its plane, so every
    // pointer offset below is in bounds; sizes are <= 2^16 so no product overflows.
    private func run(_ l: Layout, src: UnsafeRawBufferPointer, y: UnsafeMutableRawBufferPointer,
                     u: UnsafeMutableRawBufferPointer, v: UnsafeMutableRawBufferPointer, vectorized: Bool) {
        guard let s = src.baseAddress, let yp = y.baseAddress, let up = u.baseAddress, let vp = v.baseAddress else { return }
        let vectorPixels = vectorized ? l.width & ~15 : 0
        var row = 0
        while row < l.height {
            let row1 = Swift.min(row &+ 1, l.height &- 1)
            let s0 = s + row &* l.srcStride, s1 = s + row1 &* l.srcStride
            let y0 = yp + row &* l.yStride, y1 = yp + row1 &* l.yStride
            let crow = row >> 1
            let uRow = up + crow &* l.uStride, vRow = vp + crow &* l.vStride
            var x = 0
            while x < vectorPixels {
                block16(s0 + x &* 4, s1 + x &* 4, y0 + x, y1 + x, l, uRow, vRow, x >> 1)
                x &+= 16
            }
            while x < l.width {
                tail(s0, s1, y0, y1, l, uRow, vRow, x)
                x &+= 2
            }
            row &+= 2
        }
    }

    // The helpers work on 8 lanes (128 bits): LLVM turns "extend, multiply, shift right 16,
    // truncate" into one pmulhuw/pmulhw (umulh/smulh) at that width, not at 16 lanes.

    /// High half of 8 x 16-bit unsigned products.
    @inline(__always)
    private static func mulHigh(_ a: SIMD8<UInt16>, _ b: UInt16) -> SIMD8<UInt16> {
        SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a)
            &* SIMD8<UInt32>(truncatingIfNeeded: SIMD8<UInt16>(repeating: b))) &>> 16)
    }

    /// High half of 8 x 16-bit signed products.
    @inline(__always)
    private static func mulHigh(_ a: SIMD8<Int16>, _ b: Int16) -> SIMD8<Int16> {
        SIMD8<Int16>(truncatingIfNeeded: (SIMD8<Int32>(truncatingIfNeeded: a)
            &* SIMD8<Int32>(truncatingIfNeeded: SIMD8<Int16>(repeating: b))) &>> 16)
    }

    /// Components of 8 pixels, each 0...255 in a 32-bit lane.
    @inline(__always)
    private static func components(_ p: UnsafeRawPointer, _ l: Layout) -> (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>) {
        let v = p.loadUnaligned(as: SIMD8<UInt32>.self)
        let mask = SIMD8<UInt32>(repeating: 0xFF)
        return ((v &>> l.shifts.r) & mask, (v &>> l.shifts.g) & mask, (v &>> l.shifts.b) & mask)
    }

    /// Luma of 8 pixels. Each term is <= 255 * 256 * c and the c sum to at most 1, so the sum
    /// with the bias stays below 65280 + 4096 + 128 < 2^16.
    @inline(__always)
    private func luma(_ c: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)) -> SIMD8<UInt8> {
        let y = Self.mulHigh(SIMD8<UInt16>(truncatingIfNeeded: c.0 &<< 8), yR)
            &+ Self.mulHigh(SIMD8<UInt16>(truncatingIfNeeded: c.1 &<< 8), yG)
            &+ Self.mulHigh(SIMD8<UInt16>(truncatingIfNeeded: c.2 &<< 8), yB) &+ yBias
        return SIMD8<UInt8>(truncatingIfNeeded: y &>> 8)
    }

    /// Sums of the horizontal pairs of two rows' components, times 32: 2x2 block sums
    /// (<= 1020) * 32 <= 32640, which fits Int16.
    @inline(__always)
    private static func blockSums(_ a0: SIMD8<UInt32>, _ a1: SIMD8<UInt32>, _ b0: SIMD8<UInt32>, _ b1: SIMD8<UInt32>) -> SIMD8<Int16> {
        let a = a0 &+ a1, b = b0 &+ b1
        let sums = SIMD8<UInt32>(lowHalf: a.evenHalf &+ a.oddHalf, highHalf: b.evenHalf &+ b.oddHalf)
        return SIMD8<Int16>(truncatingIfNeeded: sums &<< 5)
    }

    @inline(__always)
    private func block16(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer,
                         _ y0: UnsafeMutableRawPointer, _ y1: UnsafeMutableRawPointer,
                         _ l: Layout, _ uRow: UnsafeMutableRawPointer, _ vRow: UnsafeMutableRawPointer, _ cx: Int) {
        // Pixels 0-7 and 8-15 of both rows.
        let a0 = Self.components(s0, l), b0 = Self.components(s0 + 32, l)
        let a1 = Self.components(s1, l), b1 = Self.components(s1 + 32, l)
        y0.storeBytes(of: SIMD16<UInt8>(lowHalf: luma(a0), highHalf: luma(b0)), as: SIMD16<UInt8>.self)
        y1.storeBytes(of: SIMD16<UInt8>(lowHalf: luma(a1), highHalf: luma(b1)), as: SIMD16<UInt8>.self)
        let sr = Self.blockSums(a0.0, a1.0, b0.0, b1.0)
        let sg = Self.blockSums(a0.1, a1.1, b0.1, b1.1)
        let sb = Self.blockSums(a0.2, a1.2, b0.2, b1.2)
        // Chroma in 1/64 code values: each term within +-255 * 0.5 * 64 = +-8160, so the sum
        // with the bias stays within -16320 ... 24544 + 8192: no Int16 overflow.
        let lo = SIMD8<Int16>(repeating: 0), hi = SIMD8<Int16>(repeating: 255)
        let cu = ((Self.mulHigh(sr, uR) &+ Self.mulHigh(sg, uG) &+ Self.mulHigh(sb, uB) &+ Self.cBias) &>> 6)
            .clamped(lowerBound: lo, upperBound: hi)
        let cv = ((Self.mulHigh(sr, vR) &+ Self.mulHigh(sg, vG) &+ Self.mulHigh(sb, vB) &+ Self.cBias) &>> 6)
            .clamped(lowerBound: lo, upperBound: hi)
        if l.nv12 {
            let pairs = SIMD8<UInt16>(truncatingIfNeeded: cu) | (SIMD8<UInt16>(truncatingIfNeeded: cv) &<< 8)
            (uRow + cx &* 2).storeBytes(of: pairs, as: SIMD8<UInt16>.self)
        } else {
            (uRow + cx).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: cu), as: SIMD8<UInt8>.self)
            (vRow + cx).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: cv), as: SIMD8<UInt8>.self)
        }
    }

    /// The same arithmetic for one 2x2 block (the columns after the last multiple of 16).
    private func tail(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer,
                      _ y0: UnsafeMutableRawPointer, _ y1: UnsafeMutableRawPointer,
                      _ l: Layout, _ uRow: UnsafeMutableRawPointer, _ vRow: UnsafeMutableRawPointer, _ x: Int) {
        let x1 = Swift.min(x &+ 1, l.width &- 1)
        func rgb(_ p: UnsafeRawPointer, _ i: Int) -> (Int32, Int32, Int32) {
            let v = p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)
            return (Int32((v >> l.shifts.r) & 0xFF), Int32((v >> l.shifts.g) & 0xFF), Int32((v >> l.shifts.b) & 0xFF))
        }
        // (x << 8) <= 65280 and c < 2^16: the product fits UInt32, as in the SIMD lanes.
        func luma(_ c: (Int32, Int32, Int32)) -> UInt8 {
            func t(_ v: Int32, _ k: UInt16) -> UInt32 { (UInt32(v) << 8 &* UInt32(k)) >> 16 }
            return UInt8(truncatingIfNeeded: (t(c.0, yR) &+ t(c.1, yG) &+ t(c.2, yB) &+ UInt32(yBias)) >> 8)
        }
        let a = rgb(s0, x), b = rgb(s0, x1), c = rgb(s1, x), d = rgb(s1, x1)
        y0.storeBytes(of: luma(a), toByteOffset: x, as: UInt8.self)
        y0.storeBytes(of: luma(b), toByteOffset: x1, as: UInt8.self)
        y1.storeBytes(of: luma(c), toByteOffset: x, as: UInt8.self)
        y1.storeBytes(of: luma(d), toByteOffset: x1, as: UInt8.self)
        let sr = (a.0 &+ b.0 &+ c.0 &+ d.0) << 5, sg = (a.1 &+ b.1 &+ c.1 &+ d.1) << 5, sb = (a.2 &+ b.2 &+ c.2 &+ d.2) << 5
        func chroma(_ kr: Int16, _ kg: Int16, _ kb: Int16) -> UInt8 {
            // |s| <= 32640 and |k| <= 2^14: each product fits Int32; >> is arithmetic (floor), like pmulhw.
            let v = ((sr &* Int32(kr)) >> 16) &+ ((sg &* Int32(kg)) >> 16) &+ ((sb &* Int32(kb)) >> 16) &+ Int32(Self.cBias)
            return UInt8(Swift.min(Swift.max(v >> 6, 0), 255))
        }
        let cu = chroma(uR, uG, uB), cv = chroma(vR, vG, vB)
        let cx = x >> 1
        if l.nv12 {
            uRow.storeBytes(of: cu, toByteOffset: cx &* 2, as: UInt8.self)
            uRow.storeBytes(of: cv, toByteOffset: cx &* 2 &+ 1, as: UInt8.self)
        } else {
            uRow.storeBytes(of: cu, toByteOffset: cx, as: UInt8.self)
            vRow.storeBytes(of: cv, toByteOffset: cx, as: UInt8.self)
        }
    }
}
