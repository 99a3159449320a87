internal import CX264
import H264

extension X264Encoder {
    /// Points `pic`'s planes at `frame`'s (or, for 10-bit output, at 16-bit copies scaled by 4)
    /// for the duration of `body`.
    static func withPicture<R>(_ frame: VideoFrame, highDepth: Bool, scratch: inout [UInt16],
                                       _ pic: inout x264_picture_t,
                                       _ body: (inout x264_picture_t) throws(X264Error) -> R) throws(X264Error) -> R {
        let csp: Int32
        switch frame.format {
        case .nv12: csp = X264_CSP_NV12
        case .i422: csp = X264_CSP_I422
        case .i444: csp = X264_CSP_I444
        default: csp = X264_CSP_I420
        }
        let planes = frame.planes
        pic.img.i_plane = Int32(planes.count)
        if highDepth {
            // 10-bit output: x264 takes 16-bit samples; 8-bit input is scaled by 4 into one
            // reused buffer. Sizes come from the validated configuration (each <= 2^16).
            pic.img.i_csp = csp | X264_CSP_HIGH_DEPTH
            var geometry: [(offset: Int, rowBytes: Int, rows: Int)] = []
            var total = 0
            for i in planes.indices {
                guard let g = frame.format.planeGeometry(i, width: frame.width, height: frame.height) else { continue }
                geometry.append((total, g.rowBytes, g.rows))
                total += g.rowBytes * g.rows
            }
            if scratch.count != total { scratch = [UInt16](repeating: 0, count: total) }
            scratch.withUnsafeMutableBufferPointer { out in
                for (i, g) in geometry.enumerated() {
                    planes[i].bytes.withUnsafeBufferPointer { src in
                        for y in 0..<g.rows {
                            let s = y * planes[i].bytesPerRow, d = g.offset + y * g.rowBytes
                            for x in 0..<g.rowBytes { out[d + x] = UInt16(src[s + x]) << 2 }
                        }
                    }
                }
            }
            return try scratch.withUnsafeMutableBufferPointer { (buf: inout UnsafeMutableBufferPointer<UInt16>) throws(X264Error) -> R in
                let base = UnsafeMutableRawPointer(buf.baseAddress!)
                for (i, g) in geometry.enumerated() {
                    let ptr = (base + g.offset * 2).assumingMemoryBound(to: UInt8.self)
                    setPlane(&pic, i, ptr, Int32(g.rowBytes * 2))
                }
                return try body(&pic)
            }
        }
        pic.img.i_csp = csp
        // x264 copies the input into its own frame during the call, so borrowed pointers suffice.
        return try withPlanes(planes, 0, &pic, body)
    }

    private static func withPlanes<R>(_ planes: [VideoFrame.Plane], _ index: Int, _ pic: inout x264_picture_t,
                                      _ body: (inout x264_picture_t) throws(X264Error) -> R) throws(X264Error) -> R {
        guard index < planes.count else { return try body(&pic) }
        return try planes[index].bytes.withUnsafeBufferPointer { (buf: UnsafeBufferPointer<UInt8>) throws(X264Error) -> R in
            setPlane(&pic, index, UnsafeMutablePointer(mutating: buf.baseAddress!), Int32(planes[index].bytesPerRow))
            return try withPlanes(planes, index + 1, &pic, body)
        }
    }

    private static func setPlane(_ pic: inout x264_picture_t, _ i: Int, _ p: UnsafeMutablePointer<UInt8>, _ stride: Int32) {
        switch i {
        case 0: pic.img.plane.0 = p; pic.img.i_stride.0 = stride
        case 1: pic.img.plane.1 = p; pic.img.i_stride.1 = stride
        case 2: pic.img.plane.2 = p; pic.img.i_stride.2 = stride
        default: pic.img.plane.3 = p; pic.img.i_stride.3 = stride
        }
    }
}
