/// Conversion of packed RGB frames (BGRA, ARGB) to the 4:2:0 YCbCr layouts encoders take
/// (I420, NV12), for BT.601 or BT.709, limited or full range.
///
/// The arithmetic is fixed point with 16 fractional bits, 16 pixels of two rows at a time in
/// SIMD lanes: each pair of rows yields two luma rows and one chroma row, whose samples are
/// computed from the sum of the four RGB pixels they cover (the average, rounded once). The
/// result is within one code value of the same conversion in floating point.
///
/// Odd widths and heights are accepted: the last column or row is paired with itself.
public struct ColorConversion: Sendable, Hashable {
    /// The colour matrix.
    public let matrix: ColorMatrix
    /// The output range.
    public let range: ColorRange

    // Coefficients scaled by 2^16 (rounded). Luma: Y = (yR*R + yG*G + yB*B + yBias) >> 16.
    // Chroma on the sum of four pixels: C = (cR*sR + cG*sG + cB*sB + cBias) >> 18.
    @usableFromInline let yR, yG, yB, yBias: Int32
    @usableFromInline let uR, uG, uB, vR, vG, vB, cBias: Int32

    /// Creates a conversion.
    public init(matrix: ColorMatrix = .bt601, range: ColorRange = .limited) {
        self.matrix = matrix
        self.range = range
        let kr = matrix.kr, kb = matrix.kb, kg = 1 - kr - kb
        let ys = range == .limited ? 219.0 / 255.0 : 1.0
        let cs = range == .limited ? 224.0 / 255.0 : 1.0
        func fx(_ x: Double) -> Int32 { Int32((x * 65536).rounded()) }
        yR = fx(ys * kr); yG = fx(ys * kg); yB = fx(ys * kb)
        yBias = (range == .limited ? 16 << 16 : 0) + (1 << 15)
        uR = fx(-cs * kr / (2 * (1 - kb))); uG = fx(-cs * kg / (2 * (1 - kb))); uB = fx(cs / 2)
        vR = fx(cs / 2); vG = fx(-cs * kg / (2 * (1 - kr))); vB = fx(-cs * kb / (2 * (1 - kr)))
        cBias = (128 << 18) + (1 << 17)
    }

    /// Converts a BGRA or ARGB frame to a new I420 or NV12 frame (tightly packed planes).
    ///
    /// - Parameters:
    ///   - source: a ``PixelFormat/bgra`` or ``PixelFormat/argb`` frame.
    ///   - format: ``PixelFormat/i420`` or ``PixelFormat/nv12``.
    /// - Returns: the converted frame, with the source's timestamp and orientation.
    /// - Throws: ``H264Error/Code/unsupported`` for other formats.
    /// - Complexity: O(width x height).
    public func convert(_ source: VideoFrame, to format: PixelFormat) throws(H264Error) -> VideoFrame {
        var out = try VideoFrame(width: source.width, height: source.height, format: format,
                                 pts: source.pts, timescale: source.timescale)
        out.orientation = source.orientation
        try convert(source, into: &out)
        return out
    }

    /// Converts a BGRA or ARGB frame into an existing I420 or NV12 frame of the same size,
    /// keeping its strides; reusing the destination avoids an allocation per frame.
    ///
    /// - Throws: ``H264Error/Code/unsupported`` for other formats,
    ///   ``H264Error/Code/invalidArgument`` when the sizes differ.
    /// - Complexity: O(width x height).
    public func convert(_ source: VideoFrame, into destination: inout VideoFrame) throws(H264Error) {
        guard source.format.isRGB else {
            throw H264Error.invalid(.unsupported, "colour conversion from \(source.format) is not supported")
        }
        guard destination.format == .i420 || destination.format == .nv12 else {
            throw H264Error.invalid(.unsupported, "colour conversion to \(destination.format) is not supported")
        }
        guard source.width == destination.width, source.height == destination.height else {
            throw H264Error.invalid(.invalidArgument, "sizes differ: \(source.width)x\(source.height) -> \(destination.width)x\(destination.height)")
        }
        // Byte order in a little-endian 32-bit load: BGRA = B | G<<8 | R<<16; ARGB = R<<8 | G<<16 | B<<24.
        let shifts: (r: UInt32, g: UInt32, b: UInt32) = source.format == .bgra ? (16, 8, 0) : (8, 16, 24)
        let nv12 = destination.format == .nv12
        // Take the destination planes out so that each can be borrowed mutably at once.
        var yPlane = destination.planes[0].bytes
        var uPlane = destination.planes[1].bytes
        var vPlane: [UInt8] = nv12 ? [] : destination.planes[2].bytes
        destination.planes[0].bytes = []
        destination.planes[1].bytes = []
        if !nv12 { destination.planes[2].bytes = [] }
        let yStride = destination.planes[0].bytesPerRow
        let cStride = destination.planes[1].bytesPerRow
        let vStride = nv12 ? 0 : destination.planes[2].bytesPerRow
        let sStride = source.planes[0].bytesPerRow
        source.planes[0].bytes.withUnsafeBytes { src in
            yPlane.withUnsafeMutableBytes { yb in
                uPlane.withUnsafeMutableBytes { ub in
                    vPlane.withUnsafeMutableBytes { vb in
                        let layout = Layout(width: source.width, height: source.height, srcStride: sStride,
                                            yStride: yStride, uStride: cStride, vStride: vStride,
                                            shifts: shifts, nv12: nv12)
                        run(layout, src: src, y: yb, u: ub, v: nv12 ? ub : vb)
                    }
                }
            }
        }
        destination.planes[0].bytes = yPlane
        destination.planes[1].bytes = uPlane
        if !nv12 { destination.planes[2].bytes = vPlane }
    }

    @usableFromInline struct Layout {
        let width, height, srcStride, yStride, uStride, vStride: Int
        let shifts: (r: UInt32, g: UInt32, b: UInt32)
        let nv12: Bool
    }

    // The VideoFrame initialisers have checked that every row fits in its plane, so every
    // pointer offset below is in bounds; sizes are <= 2^16 so no product overflows.
    private func run(_ l: Layout, src: UnsafeRawBufferPointer, y: UnsafeMutableRawBufferPointer,
                     u: UnsafeMutableRawBufferPointer, v: UnsafeMutableRawBufferPointer) {
        guard let s = src.baseAddress, let yp = y.baseAddress, let up = u.baseAddress, let vp = v.baseAddress else { return }
        let vectorPixels = l.width & ~15
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

    @inline(__always)
    private func block16(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer,
                         _ y0: UnsafeMutableRawPointer, _ y1: UnsafeMutableRawPointer,
                         _ l: Layout, _ uRow: UnsafeMutableRawPointer, _ vRow: UnsafeMutableRawPointer, _ cx: Int) {
        let p0 = s0.loadUnaligned(as: SIMD16<UInt32>.self)
        let p1 = s1.loadUnaligned(as: SIMD16<UInt32>.self)
        let mask = SIMD16<UInt32>(repeating: 0xFF)
        let r0 = SIMD16<Int32>(truncatingIfNeeded: (p0 &>> l.shifts.r) & mask)
        let g0 = SIMD16<Int32>(truncatingIfNeeded: (p0 &>> l.shifts.g) & mask)
        let b0 = SIMD16<Int32>(truncatingIfNeeded: (p0 &>> l.shifts.b) & mask)
        let r1 = SIMD16<Int32>(truncatingIfNeeded: (p1 &>> l.shifts.r) & mask)
        let g1 = SIMD16<Int32>(truncatingIfNeeded: (p1 &>> l.shifts.g) & mask)
        let b1 = SIMD16<Int32>(truncatingIfNeeded: (p1 &>> l.shifts.b) & mask)
        // Luma of both rows: at most 255 * 65536 + bias < 2^31, never negative.
        let luma0 = (r0 &* yR &+ g0 &* yG &+ b0 &* yB &+ yBias) &>> 16
        let luma1 = (r1 &* yR &+ g1 &* yG &+ b1 &* yB &+ yBias) &>> 16
        y0.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: luma0), as: SIMD16<UInt8>.self)
        y1.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: luma1), as: SIMD16<UInt8>.self)
        // Sums of 2x2 blocks: at most 1020 per component.
        let rs = r0 &+ r1, gs = g0 &+ g1, bs = b0 &+ b1
        let sr = rs.evenHalf &+ rs.oddHalf, sg = gs.evenHalf &+ gs.oddHalf, sb = bs.evenHalf &+ bs.oddHalf
        let lo = SIMD8<Int32>(repeating: 0), hi = SIMD8<Int32>(repeating: 255)
        // |coefficient| <= 0.5 * 2^16, so each sum is within +-3 * 1020 * 2^15 + bias < 2^31.
        let cu = ((sr &* uR &+ sg &* uG &+ sb &* uB &+ cBias) &>> 18).clamped(lowerBound: lo, upperBound: hi)
        let cv = ((sr &* vR &+ sg &* vG &+ sb &* vB &+ cBias) &>> 18).clamped(lowerBound: lo, upperBound: hi)
        if l.nv12 {
            let pairs = SIMD8<UInt16>(truncatingIfNeeded: cu | (cv &<< 8))
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
        func luma(_ c: (Int32, Int32, Int32)) -> UInt8 {
            UInt8(truncatingIfNeeded: (c.0 &* yR &+ c.1 &* yG &+ c.2 &* yB &+ yBias) >> 16)
        }
        let a = rgb(s0, x), b = rgb(s0, x1), c = rgb(s1, x), d = rgb(s1, x1)
        y0.storeBytes(of: luma(a), toByteOffset: x, as: UInt8.self)
        y0.storeBytes(of: luma(b), toByteOffset: x1, as: UInt8.self)
        y1.storeBytes(of: luma(c), toByteOffset: x, as: UInt8.self)
        y1.storeBytes(of: luma(d), toByteOffset: x1, as: UInt8.self)
        let sr = a.0 &+ b.0 &+ c.0 &+ d.0, sg = a.1 &+ b.1 &+ c.1 &+ d.1, sb = a.2 &+ b.2 &+ c.2 &+ d.2
        let cu = UInt8(Swift.min(Swift.max((sr &* uR &+ sg &* uG &+ sb &* uB &+ cBias) >> 18, 0), 255))
        let cv = UInt8(Swift.min(Swift.max((sr &* vR &+ sg &* vG &+ sb &* vB &+ cBias) >> 18, 0), 255))
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
