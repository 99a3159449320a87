import H264
import H264Video

/// Encoding measurements for the benchmark executable.
enum EncodingBench {
    /// BGRA -> I420 colour conversion speed (BT.601 limited range) on 1280x720 frames in
    /// memory: the conversion is run `iterations` times into one reused destination frame.
    ///
    /// - Returns: megapixels per second (the `bgra_to_i420_mpps` key).
    static func bgraToI420MegapixelsPerSecond(iterations: Int = 300) throws -> Double {
        let width = 1280, height = 720
        var source = try VideoFrame(width: width, height: height, format: .bgra, alignment: 64)
        source.withMutablePlane(0) { p, _ in
            var x: UInt32 = 0x1234_5678
            for i in 0..<p.count { x = x &* 1_664_525 &+ 1_013_904_223; p[i] = UInt8(truncatingIfNeeded: x >> 24) }
        }
        var destination = try VideoFrame(width: width, height: height, format: .i420, alignment: 64)
        let conversion = ColorConversion(matrix: .bt601, range: .limited)
        try conversion.convert(source, into: &destination)  // warm up
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<max(1, iterations) { try conversion.convert(source, into: &destination) }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(width * height * max(1, iterations)) / 1e6 / seconds
    }
}
