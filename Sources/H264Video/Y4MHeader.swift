import H264

/// The stream header of a YUV4MPEG2 (`.y4m`) file: `YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg`.
///
/// Parameters are separated by spaces, each a letter and a value: `W` width, `H` height,
/// `F` frame rate `n:d`, `I` interlacing (`p`, `t`, `b`, `m`, `?`), `A` pixel aspect `n:d`,
/// `C` colour space, `X` an extension (`XCOLORRANGE=FULL` as FFmpeg writes it). Only 8-bit
/// 4:2:0, 4:2:2 and 4:4:4 colour spaces are accepted.
public struct Y4MHeader: Hashable, Sendable {
    /// Field order (`I` parameter).
    public enum Interlacing: Hashable, Sendable {
        /// `Ip`: progressive frames.
        case progressive
        /// `It`: interlaced, top field first.
        case topFieldFirst
        /// `Ib`: interlaced, bottom field first.
        case bottomFieldFirst
        /// `Im`: mixed modes, given per frame.
        case mixed
        /// `I?` or absent.
        case unknown
    }

    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Frame rate as numerator and denominator (`F`); 0:0 when absent or unknown.
    public var frameRate: (numerator: Int, denominator: Int)
    /// Field order.
    public var interlacing: Interlacing
    /// Pixel aspect ratio (`A`); 0:0 when unknown.
    public var pixelAspect: (numerator: Int, denominator: Int)
    /// The pixel format of the frames (I420, I422 or I444).
    public var pixelFormat: PixelFormat
    /// The `C` value as written (`420jpeg`, `420mpeg2`, `422`, ...); `420jpeg` when absent.
    public var colorspace: String
    /// The range given by an `XCOLORRANGE=` extension, or nil.
    public var colorRange: ColorRange?
    /// Every `X` extension value, without the `X`.
    public var extensions: [String]

    public static func == (a: Y4MHeader, b: Y4MHeader) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.interlacing == b.interlacing
            && a.pixelAspect == b.pixelAspect && a.pixelFormat == b.pixelFormat && a.colorspace == b.colorspace
            && a.colorRange == b.colorRange && a.extensions == b.extensions
    }
    public func hash(into h: inout Hasher) { h.combine(width); h.combine(height); h.combine(colorspace) }

    /// The most pixels a frame may have (2^26, e.g. 8192 x 8192): a hostile header cannot make
    /// the reader buffer more than 192 MiB for one frame.
    public static let maxPixels = 1 << 26

    /// The size in bytes of one frame's samples (without the `FRAME` line).
    public var frameByteCount: Int {
        var total = 0
        for i in 0..<pixelFormat.planeCount {
            // Sizes are capped at 2^16 each: the products fit in Int.
            if let g = pixelFormat.planeGeometry(i, width: width, height: height) { total &+= g.rowBytes &* g.rows }
        }
        return total
    }

    /// Parses the header line (without its final newline).
    ///
    /// - Throws: `H264VideoError.Code.invalidArgument` for a line that is not a Y4M header or has a
    ///   malformed parameter, `H264VideoError.Code.unsupported` for colour spaces other than 8-bit
    ///   4:2:0, 4:2:2 and 4:4:4, `H264VideoError.Code.limitExceeded` for sizes over
    ///   `PixelFormat.maxDimension`.
    public init<C: Collection>(line: C) throws(H264VideoError) where C.Element == UInt8 {
        let words = line.split(separator: 0x20, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard words.first == "YUV4MPEG2" else { throw H264VideoError.invalid(.invalidArgument, "not a YUV4MPEG2 stream") }
        var width = -1, height = -1
        var rate = (numerator: 0, denominator: 0), aspect = (numerator: 0, denominator: 0)
        var interlacing = Interlacing.unknown
        var colorspace = "420jpeg"
        var range: ColorRange? = nil
        var extensions: [String] = []
        for word in words.dropFirst() {
            guard let tag = word.first else { continue }
            let value = String(word.dropFirst())
            switch tag {
            case "W": width = try Y4MHeader.number(value, "W")
            case "H": height = try Y4MHeader.number(value, "H")
            case "F": rate = try Y4MHeader.ratio(value, "F")
            case "A": aspect = try Y4MHeader.ratio(value, "A")
            case "C": colorspace = value
            case "I":
                switch value {
                case "p": interlacing = .progressive
                case "t": interlacing = .topFieldFirst
                case "b": interlacing = .bottomFieldFirst
                case "m": interlacing = .mixed
                default: interlacing = .unknown
                }
            case "X":
                extensions.append(value)
                if value == "COLORRANGE=FULL" { range = .full } else if value == "COLORRANGE=LIMITED" { range = .limited }
            default: throw H264VideoError.invalid(.invalidArgument, "unknown Y4M header parameter '\(word)'")
            }
        }
        guard width > 0, height > 0 else { throw H264VideoError.invalid(.invalidArgument, "Y4M header needs positive W and H") }
        // Both <= 2^30 after number(): the product fits in Int.
        guard width <= PixelFormat.maxDimension, height <= PixelFormat.maxDimension, width &* height <= Y4MHeader.maxPixels else {
            throw H264VideoError.invalid(.limitExceeded, "Y4M frame \(width)x\(height) is too large")
        }
        switch colorspace {
        case "420jpeg", "420paldv", "420mpeg2", "420": pixelFormat = .i420
        case "422": pixelFormat = .i422
        case "444": pixelFormat = .i444
        default: throw H264VideoError.invalid(.unsupported, "Y4M colour space '\(colorspace)' is not supported (8-bit 420, 422, 444 only)")
        }
        self.width = width
        self.height = height
        self.frameRate = rate
        self.interlacing = interlacing
        self.pixelAspect = aspect
        self.colorspace = colorspace
        self.colorRange = range
        self.extensions = extensions
    }

    private static func number(_ s: String, _ name: String) throws(H264VideoError) -> Int {
        guard s.utf8.count <= 9, let v = Int(s), v >= 0 else {
            throw H264VideoError.invalid(.invalidArgument, "Y4M \(name) value '\(s)' is not a number")
        }
        return v
    }

    private static func ratio(_ s: String, _ name: String) throws(H264VideoError) -> (numerator: Int, denominator: Int) {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw H264VideoError.invalid(.invalidArgument, "Y4M \(name) value '\(s)' is not n:d") }
        return (try number(String(parts[0]), name), try number(String(parts[1]), name))
    }
}
