// Stands in for a camera: 1280x720 NV12 frames whose rows are padded to 1344 bytes, as
// capture hardware delivers them, with a moving picture and 30 fps timestamps at 90 kHz.
import H264

func cameraFrame(_ index: Int, width: Int, height: Int) throws -> VideoFrame {
    let rowBytes = 1344
    var luma = [UInt8](repeating: 0, count: rowBytes * height)
    var chroma = [UInt8](repeating: 128, count: rowBytes * height / 2)
    for y in 0..<height {
        for x in 0..<width { luma[y * rowBytes + x] = UInt8(truncatingIfNeeded: x + y + 4 * index) }
    }
    for y in 0..<height / 2 {
        for x in stride(from: 0, to: width, by: 2) { chroma[y * rowBytes + x] = UInt8(truncatingIfNeeded: 64 + y + index) }
    }
    return try VideoFrame(width: width, height: height, format: .nv12,
                          planes: [.init(bytes: luma, bytesPerRow: rowBytes), .init(bytes: chroma, bytesPerRow: rowBytes)],
                          pts: Int64(index) * 3000, timescale: 90_000)
}
