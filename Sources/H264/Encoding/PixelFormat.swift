/// The memory layout of a ``VideoFrame``'s pixels.
///
/// The planar YUV formats carry 8-bit samples; the packed RGB formats carry 8-bit
/// components with an alpha (or padding) byte that encoders ignore.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Planar Y, then U (Cb) and V (Cr) at half width and half height (4:2:0).
    case i420
    /// Y plane, then one plane of interleaved U, V pairs at half width and half height (4:2:0):
    /// what cameras and VideoToolbox produce.
    case nv12
    /// Packed 32-bit pixels, bytes B, G, R, A in memory.
    case bgra
    /// Packed 32-bit pixels, bytes A, R, G, B in memory.
    case argb
    /// Planar Y, U, V with chroma at half width and full height (4:2:2).
    case i422
    /// Planar Y, U, V, all at full resolution (4:4:4).
    case i444

    /// Number of planes: 1 for packed RGB, 2 for NV12, 3 for the planar YUV formats.
    @inlinable public var planeCount: Int {
        switch self {
        case .bgra, .argb: return 1
        case .nv12: return 2
        case .i420, .i422, .i444: return 3
        }
    }

    /// True for the packed RGB formats, which an H.264 encoder converts to YUV first.
    @inlinable public var isRGB: Bool { self == .bgra || self == .argb }

    /// The chroma subsampling of the YUV formats, or nil for RGB.
    public var chromaFormat: ChromaFormat? {
        switch self {
        case .i420, .nv12: return .yuv420
        case .i422: return .yuv422
        case .i444: return .yuv444
        case .bgra, .argb: return nil
        }
    }

    /// The bytes one row of `plane` needs (without padding) and the number of rows, for a
    /// picture of `width` x `height` pixels. Odd sizes round the subsampled planes up.
    ///
    /// - Returns: nil when `plane` is not a plane of this format or the size overflows.
    public func planeGeometry(_ plane: Int, width: Int, height: Int) -> (rowBytes: Int, rows: Int)? {
        guard plane >= 0, plane < planeCount, width > 0, height > 0,
              width <= PixelFormat.maxDimension, height <= PixelFormat.maxDimension else { return nil }
        // width, height <= 2^16: every product below fits easily in Int.
        let halfW = (width &+ 1) >> 1, halfH = (height &+ 1) >> 1
        switch self {
        case .bgra, .argb: return (width &* 4, height)
        case .nv12: return plane == 0 ? (width, height) : (halfW &* 2, halfH)
        case .i420: return plane == 0 ? (width, height) : (halfW, halfH)
        case .i422: return plane == 0 ? (width, height) : (halfW, height)
        case .i444: return (width, height)
        }
    }

    /// The largest width or height a frame may have (H.264 level 6.2 allows 8192 x 4320 and
    /// more at odd aspect ratios; 65536 is a safe cap against hostile headers).
    public static let maxDimension = 1 << 16

    public var description: String { rawValue }
}

/// `chroma_format_idc` of ITU-T H.264 Table 6-1: the type of the SPS's element, and the
/// sampling of the pixel formats an encoder produces (4:2:0, 4:2:2, 4:4:4).
public enum ChromaFormat: UInt8, Sendable, Hashable, CaseIterable {
    /// Monochrome 4:0:0, `chroma_format_idc` 0 (High profiles; no ``PixelFormat`` has it).
    case monochrome = 0
    /// 4:2:0, `chroma_format_idc` 1.
    case yuv420 = 1
    /// 4:2:2, `chroma_format_idc` 2.
    case yuv422 = 2
    /// 4:4:4, `chroma_format_idc` 3.
    case yuv444 = 3
}
