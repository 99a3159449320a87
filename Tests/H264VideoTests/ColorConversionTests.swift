import Testing
import H264
@testable import H264Video

@Suite struct ColorConversionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let matrix: ColorMatrix, range: ColorRange, source: PixelFormat, destination: PixelFormat
        var testDescription: String { "\(matrix) \(range) \(source)->\(destination)" }
    }
    static let cases: [Case] = ColorMatrix.allCases.flatMap { m in ColorRange.allCases.flatMap { r in
        [PixelFormat.bgra, .argb].flatMap { s in [PixelFormat.i420, .nv12].map { Case(matrix: m, range: r, source: s, destination: $0) } }
    } }

    /// A deterministic pseudo-random generator.
    struct Rng { var s: UInt64; mutating func next() -> UInt64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s } }

    static func randomRGB(width: Int, height: Int, format: PixelFormat, padding: Int, seed: UInt64) throws -> VideoFrame {
        var rng = Rng(s: seed)
        let stride = width * 4 + padding
        let bytes = (0..<(stride * height)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        return try VideoFrame(width: width, height: height, format: format, planes: [.init(bytes: bytes, bytesPerRow: stride)])
    }

    /// The float reference: luma per pixel, chroma from the average of each 2x2 block.
    static func reference(_ f: VideoFrame, _ m: ColorMatrix, _ r: ColorRange) -> (y: [[Double]], u: [[Double]], v: [[Double]]) {
        let p = f.planes[0]
        func rgb(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let o = y * p.bytesPerRow + x * 4
            let b = p.bytes
            return f.format == .bgra ? (Double(b[o + 2]), Double(b[o + 1]), Double(b[o])) : (Double(b[o + 1]), Double(b[o + 2]), Double(b[o + 3]))
        }
        let kr = m.kr, kb = m.kb, kg = 1 - kr - kb
        let ys = r == .limited ? 219.0 / 255 : 1, cs = r == .limited ? 224.0 / 255 : 1, yo = r == .limited ? 16.0 : 0
        var ys2: [[Double]] = [], us: [[Double]] = [], vs: [[Double]] = []
        for y in 0..<f.height {
            ys2.append((0..<f.width).map { x in let c = rgb(x, y); return yo + ys * (kr * c.0 + kg * c.1 + kb * c.2) })
        }
        for cy in 0..<(f.height + 1) / 2 {
            var ur: [Double] = [], vr: [Double] = []
            for cx in 0..<(f.width + 1) / 2 {
                var s = (0.0, 0.0, 0.0)
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let c = rgb(min(cx * 2 + dx, f.width - 1), min(cy * 2 + dy, f.height - 1))
                    s = (s.0 + c.0 / 4, s.1 + c.1 / 4, s.2 + c.2 / 4)
                }
                let l = kr * s.0 + kg * s.1 + kb * s.2
                ur.append(min(255, max(0, 128 + cs * (s.2 - l) / (2 * (1 - kb)))))
                vr.append(min(255, max(0, 128 + cs * (s.0 - l) / (2 * (1 - kr)))))
            }
            us.append(ur); vs.append(vr)
        }
        return (ys2, us, vs)
    }

    static func maxError(_ src: VideoFrame, _ out: VideoFrame, _ m: ColorMatrix, _ r: ColorRange) -> Double {
        let ref = reference(src, m, r)
        var worst = 0.0
        for y in 0..<src.height { for x in 0..<src.width {
            worst = max(worst, abs(Double(out.planes[0].bytes[y * out.planes[0].bytesPerRow + x]) - ref.y[y][x]))
        } }
        for cy in 0..<ref.u.count { for cx in 0..<ref.u[cy].count {
            let u: UInt8, v: UInt8
            if out.format == .nv12 {
                let o = cy * out.planes[1].bytesPerRow + cx * 2
                (u, v) = (out.planes[1].bytes[o], out.planes[1].bytes[o + 1])
            } else {
                (u, v) = (out.planes[1].bytes[cy * out.planes[1].bytesPerRow + cx], out.planes[2].bytes[cy * out.planes[2].bytesPerRow + cx])
            }
            worst = max(worst, abs(Double(u) - ref.u[cy][cx]), abs(Double(v) - ref.v[cy][cx]))
        } }
        return worst
    }

    @Test(arguments: cases)
    func randomImagesWithinOneCodeValue(_ c: Case) throws {
        let conversion = ColorConversion(matrix: c.matrix, range: c.range)
        // Widths with and without a SIMD tail, odd sizes, padded strides.
        for (i, (w, h, pad)) in [(64, 32, 0), (160, 96, 12), (37, 19, 4), (1, 1, 0), (17, 3, 60)].enumerated() {
            let src = try Self.randomRGB(width: w, height: h, format: c.source, padding: pad, seed: UInt64(i + 1) * 7919)
            var dst = try VideoFrame(width: w, height: h, format: c.destination, alignment: 32)
            try conversion.convert(src, into: &dst)
            #expect(Self.maxError(src, dst, c.matrix, c.range) <= 1.0, "\(w)x\(h)")
        }
    }

    @Test(arguments: cases)
    func scalarAndSIMDLoopsGiveTheSameBytes(_ c: Case) throws {
        // Debug builds run the scalar loop, release builds the SIMD one: every byte must agree,
        // on widths that are whole SIMD blocks, have a tail, or are odd, with padded strides.
        let conversion = ColorConversion(matrix: c.matrix, range: c.range)
        for (i, (w, h, pad)) in [(64, 34, 8), (50, 17, 4), (33, 5, 0)].enumerated() {
            let src = try Self.randomRGB(width: w, height: h, format: c.source, padding: pad, seed: UInt64(i + 3) * 104_729)
            var simd = try VideoFrame(width: w, height: h, format: c.destination, alignment: 32)
            var scalar = simd
            try conversion.convert(src, into: &simd, vectorized: true)
            try conversion.convert(src, into: &scalar, vectorized: false)
            #expect(simd.planes.map(\.bytes) == scalar.planes.map(\.bytes), "\(w)x\(h)")
            #expect(simd.planes[0].bytes.contains { $0 != 0 }, "\(w)x\(h): the conversion wrote luma")
        }
    }

    @Test(arguments: cases)
    func colourCubeWithinOneCodeValue(_ c: Case) throws {
        // Every 17th value of each component (0, 17, ..., 255), as uniform 2x2 blocks (so chroma sees exact colours).
        let steps = Array(stride(from: 0, through: 255, by: 17))
        let n = steps.count * steps.count * steps.count
        let width = 2 * 64, height = 2 * ((n + 63) / 64)
        var bytes = [UInt8](repeating: 0, count: width * 4 * height)
        var k = 0
        for r in steps { for g in steps { for b in steps {
            let bx = (k % 64) * 2, by = (k / 64) * 2
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let o = (by + dy) * width * 4 + (bx + dx) * 4
                let px: [UInt8] = c.source == .bgra ? [UInt8(b), UInt8(g), UInt8(r), 255] : [255, UInt8(r), UInt8(g), UInt8(b)]
                for j in 0..<4 { bytes[o + j] = px[j] }
            }
            k += 1
        } } }
        let src = try VideoFrame(width: width, height: height, format: c.source, planes: [.init(bytes: bytes, bytesPerRow: width * 4)])
        let out = try ColorConversion(matrix: c.matrix, range: c.range).convert(src, to: c.destination)
        #expect(Self.maxError(src, out, c.matrix, c.range) <= 1.0)
    }

    @Test func knownValues() throws {
        // White and black, BT.601 limited: Y 235/16, chroma 128.
        let px: [UInt8] = [255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255]
        let src = try VideoFrame(width: 2, height: 2, format: .bgra, planes: [.init(bytes: px, bytesPerRow: 8)])
        let out = try ColorConversion().convert(src, to: .i420)
        #expect(out.planes[0].bytes == [235, 16, 235, 16])
        #expect(out.planes[1].bytes == [128] && out.planes[2].bytes == [128])
    }

    @Test func rejectsOtherFormats() throws {
        let yuv = try VideoFrame(width: 4, height: 4, format: .i420)
        #expect(throws: H264VideoError(.unsupported, "")) { try ColorConversion().convert(yuv, to: .i420) }
        let rgb = try VideoFrame(width: 4, height: 4, format: .bgra)
        #expect(throws: H264VideoError(.unsupported, "")) { try ColorConversion().convert(rgb, to: .i444) }
        var small = try VideoFrame(width: 2, height: 2, format: .nv12)
        #expect(throws: H264VideoError(.invalidArgument, "")) { try ColorConversion().convert(rgb, into: &small) }
    }

    /// A `ColorDescription`'s conversion: BT.709 for matrix 1 only, BT.601 for 5, 6 and every
    /// other code point (2 "unspecified" among them); the range from `video_full_range_flag`.
    @Test func conversionOfAColorDescription() {
        #expect(ColorDescription.bt709.conversion == ColorConversion(matrix: .bt709, range: .limited))
        #expect(ColorDescription.bt601.conversion == ColorConversion(matrix: .bt601, range: .limited))
        #expect(ColorDescription.bt601PAL.conversion == ColorConversion(matrix: .bt601, range: .limited))
        #expect(ColorDescription(fullRange: true).conversion == ColorConversion(matrix: .bt601, range: .full))
        #expect(ColorDescription(primaries: 6, transferCharacteristics: 6, matrixCoefficients: 1, fullRange: true).conversion
                == ColorConversion(matrix: .bt709, range: .full))
    }
}
