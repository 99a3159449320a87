import H264

/// What the snippets start from and the articles take as given: a capturer's frames.
enum SnippetSupport {
    /// `count` I420 (the encoder's default) or NV12 frames of `width` x `height`, a grey picture
    /// with a moving bright square (so that P pictures code motion), 30 a second on the 90 kHz
    /// clock.
    static func frames(count: Int, width: Int, height: Int, format: PixelFormat = .i420) throws -> [VideoFrame] {
        try (0..<count).map { i in
            var luma = [UInt8](repeating: 96, count: width * height)
            let x0 = (i * 4) % max(1, width - 16)
            for y in 8..<min(height, 24) { for x in x0..<(x0 + 16) { luma[y * width + x] = 220 } }
            let planes: [VideoFrame.Plane] = format == .nv12
                ? [.init(bytes: luma, bytesPerRow: width),
                   .init(bytes: [UInt8](repeating: 128, count: width * height / 2), bytesPerRow: width)]
                : [.init(bytes: luma, bytesPerRow: width),
                   .init(bytes: [UInt8](repeating: 128, count: width * height / 4), bytesPerRow: width / 2),
                   .init(bytes: [UInt8](repeating: 128, count: width * height / 4), bytesPerRow: width / 2)]
            return try VideoFrame(width: width, height: height, format: format, planes: planes,
                                  pts: Int64(i) * 3000, timescale: 90_000)
        }
    }
}
