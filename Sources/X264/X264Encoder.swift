internal import CX264
import H264
import Synchronization
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A ``FrameEncoder`` over libx264.
///
/// ```swift
/// var config = X264Encoder.Configuration(width: 1280, height: 720)
/// config.rateControl = .averageBitrate(2_000_000)
/// let encoder = try X264Encoder(configuration: config)
/// for frame in frames { for au in try encoder.encode(frame) { write(au.annexB()) } }
/// for au in try encoder.flush() { write(au.annexB()) }
/// ```
///
/// ## Bitrate changes
///
/// `x264_encoder_reconfig` changes the bitrate only of an encoder opened with a VBV, and moves
/// the ABR target itself only when the VBV rate equals the bitrate (x264's CBR-like ABR; in
/// plain ABR only the VBV would change). So an average-bitrate encoder is always opened in
/// ABR with `vbv-maxrate` equal to the bitrate and a VBV buffer of the tightest data rate
/// limit's bytes, or one second of the bitrate without limits; a limit whose rate is below the
/// bitrate lowers the target to it. ``setAverageBitrate(_:)`` and ``setDataRateLimits(_:)``
/// recompute these numbers and reconfigure. Quality modes (CRF, QP) cannot change to a
/// bitrate; they take data rate limits later only when opened with some.
///
/// ## Threads
///
/// The encoder is `Sendable`: calls are serialised by a lock, so one encoder may be fed from
/// any thread. Independent encoders share nothing and run in parallel.
///
/// ## Display orientation
///
/// A frame with an ``VideoFrame/orientation`` carries a display orientation SEI message
/// (payloadType 47) in its access unit, attached through x264's `extra_sei`.
public final class X264Encoder: FrameEncoder, Sendable {
    /// The configuration the encoder was opened with (bitrate changes are not reflected).
    public let configuration: Configuration

    private struct State {
        let handle: OpaquePointer
        var scratch: VideoFrame?
        var highDepth: [UInt16] = []
        var timescale: Int32 = 90_000
        var flushed = false
        var averageBitrate: Int?
        var limits: [DataRateLimit]
        var parameterSets: [NALUnit] = []
    }

    private let state: Mutex<State>
    private let log: X264Log

    /// Opens an encoder.
    ///
    /// - Throws: ``H264Error/Code/invalidArgument`` for a size, rate, bitrate or other setting
    ///   out of range (odd sizes for 4:2:0); ``H264Error/Code/unsupported`` for a profile
    ///   that cannot carry the input's chroma format or lossless coding;
    ///   ``H264Error/Code/encoderFailure`` when `x264_encoder_open` fails (with x264's error
    ///   messages in the reason).
    public init(configuration: Configuration) throws(H264Error) {
        try configuration.validate()
        self.configuration = configuration
        let log = X264Log(handler: configuration.logHandler)
        self.log = log
        var p = try configuration.makeParameters()
        log.install(in: &p)
        p.i_log_level = Int32(configuration.logHandler == nil ? LogLevel.error.rawValue : configuration.logLevel.rawValue)
        guard let handle = cx264_encoder_open(&p) else {
            let messages = log.errors.withLock { $0 }
            throw H264Error.invalid(.encoderFailure, "x264_encoder_open failed" + (messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")))
        }
        var s = State(handle: handle, averageBitrate: configuration.averageBitrate, limits: configuration.dataRateLimits)
        s.parameterSets = X264Encoder.headers(handle)
        state = Mutex(s)
    }

    deinit {
        state.withLock { x264_encoder_close($0.handle) }
    }

    /// The current SPS and PPS NAL units.
    public var parameterSets: [NALUnit] { state.withLock { $0.parameterSets } }

    /// Number of frames x264 holds (lookahead and reordering delay).
    public var delayedFrames: Int { state.withLock { Int(x264_encoder_delayed_frames($0.handle)) } }

    /// Encodes one frame.
    ///
    /// - Parameters:
    ///   - frame: a frame of the configured size and pixel format; its `pts` (in its own
    ///     timescale, which must not change) is carried to the output.
    ///   - options: ``FrameEncodeOptions/forceKeyframe`` makes this frame an IDR picture.
    /// - Returns: the access units that came out, in decoding order (often none at first).
    /// - Throws: ``H264Error/Code/invalidArgument`` for a frame of another size or format, or
    ///   after ``flush()``; ``H264Error/Code/encoderFailure`` when x264 fails.
    public func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(H264Error) -> [EncodedFrame] {
        let c = configuration
        guard frame.width == c.width, frame.height == c.height, frame.format == c.pixelFormat else {
            throw H264Error.invalid(.invalidArgument,
                "frame is \(frame.width)x\(frame.height) \(frame.format), encoder expects \(c.width)x\(c.height) \(c.pixelFormat)")
        }
        return try state.withLock { (s: inout State) throws(H264Error) -> [EncodedFrame] in
            guard !s.flushed else { throw H264Error.invalid(.invalidArgument, "encode after flush") }
            s.timescale = frame.timescale
            var input = frame
            if frame.format.isRGB {
                var scratch: VideoFrame
                if let existing = s.scratch { scratch = existing } else {
                    scratch = try VideoFrame(width: frame.width, height: frame.height, format: .i420)
                }
                s.scratch = nil
                try c.rgbConversion.convert(frame, into: &scratch)
                input = scratch
                s.scratch = scratch
            }
            var pic = x264_picture_t()
            x264_picture_init(&pic)
            pic.i_type = options.forceKeyframe ? X264_TYPE_IDR : X264_TYPE_AUTO
            pic.i_pts = frame.pts
            if let o = frame.orientation { X264Encoder.attach(o, to: &pic) }
            return try X264Encoder.withPicture(input, highDepth: c.profile == .high10, scratch: &s.highDepth, &pic) {
                (pic: inout x264_picture_t) throws(H264Error) -> [EncodedFrame] in
                try X264Encoder.encodeCall(s.handle, &pic, timescale: frame.timescale)
            }
        }
    }

    /// Drains the frames x264 still holds. The encoder accepts no frames afterwards.
    ///
    /// - Throws: ``H264Error/Code/encoderFailure`` when x264 fails.
    public func flush() throws(H264Error) -> [EncodedFrame] {
        try state.withLock { (s: inout State) throws(H264Error) -> [EncodedFrame] in
            s.flushed = true
            var out: [EncodedFrame] = []
            while x264_encoder_delayed_frames(s.handle) > 0 {
                let units = try X264Encoder.encodeCall(s.handle, nil, timescale: s.timescale)
                out += units
            }
            return out
        }
    }

    /// Changes the average bitrate (bits per second) for the frames that follow.
    ///
    /// The VBV follows (see "Bitrate changes" above).
    /// - Throws: ``H264Error/Code/invalidArgument`` for a bitrate below 1000 or above 2e9;
    ///   ``H264Error/Code/unsupported`` for an encoder in a quality mode (CRF, QP);
    ///   ``H264Error/Code/encoderFailure`` when x264 refuses.
    public func setAverageBitrate(_ bitsPerSecond: Int) throws(H264Error) {
        guard bitsPerSecond >= 1000, bitsPerSecond <= 2_000_000_000 else {
            throw H264Error.invalid(.invalidArgument, "average bitrate \(bitsPerSecond) must be 1000...2e9 bits/s")
        }
        guard case .averageBitrate = configuration.rateControl else {
            throw H264Error.invalid(.unsupported, "a quality-mode (CRF/QP) encoder cannot change to a bitrate")
        }
        try state.withLock { (s: inout State) throws(H264Error) in
            s.averageBitrate = bitsPerSecond
            try X264Encoder.reconfig(&s)
        }
    }

    /// Replaces the data rate limits (mapped to the VBV) for the frames that follow.
    ///
    /// - Throws: ``H264Error/Code/invalidArgument`` for an empty or malformed limit;
    ///   ``H264Error/Code/unsupported`` for a quality-mode encoder opened without limits
    ///   (x264 cannot add a VBV to a running encoder); ``H264Error/Code/encoderFailure`` when
    ///   x264 refuses.
    public func setDataRateLimits(_ limits: [DataRateLimit]) throws(H264Error) {
        guard !limits.isEmpty else { throw H264Error.invalid(.invalidArgument, "no data rate limits given") }
        var probe = configuration
        probe.dataRateLimits = limits
        try probe.validate()
        if case .averageBitrate = configuration.rateControl {} else if configuration.dataRateLimits.isEmpty {
            throw H264Error.invalid(.unsupported, "a quality-mode encoder opened without data rate limits cannot get them later")
        }
        try state.withLock { (s: inout State) throws(H264Error) in
            s.limits = limits
            try X264Encoder.reconfig(&s)
        }
    }

    // MARK: - x264 calls

    /// Applies the state's bitrate and limits to the running encoder.
    private static func reconfig(_ s: inout State) throws(H264Error) {
        guard let r = Configuration.rateSettings(bitrate: s.averageBitrate, limits: s.limits) else { return }
        var p = x264_param_t()
        x264_encoder_parameters(s.handle, &p)
        r.apply(to: &p)
        guard x264_encoder_reconfig(s.handle, &p) >= 0 else {
            throw H264Error.invalid(.encoderFailure, "x264_encoder_reconfig failed")
        }
        s.parameterSets = headers(s.handle)
    }

    private static func headers(_ handle: OpaquePointer) -> [NALUnit] {
        var nals: UnsafeMutablePointer<x264_nal_t>? = nil
        var count: Int32 = 0
        guard x264_encoder_headers(handle, &nals, &count) >= 0, let nals else { return [] }
        var units: [NALUnit] = []
        for i in 0..<Int(count) {
            let n = nals[i]
            guard n.i_type == 7 || n.i_type == 8, n.i_payload > 4, let base = n.p_payload else { continue }
            let bytes = Array(UnsafeBufferPointer(start: base + 4, count: Int(n.i_payload) - 4))
            if let unit = try? NALUnit(bytes) { units.append(unit) }
        }
        return units
    }

    /// One `x264_encoder_encode` call (nil picture: drain); the output as an access unit.
    private static func encodeCall(_ handle: OpaquePointer, _ pic: UnsafeMutablePointer<x264_picture_t>?,
                                   timescale: Int32) throws(H264Error) -> [EncodedFrame] {
        var nals: UnsafeMutablePointer<x264_nal_t>? = nil
        var count: Int32 = 0
        var out = x264_picture_t()
        let size = x264_encoder_encode(handle, &nals, &count, pic, &out)
        guard size >= 0 else { throw H264Error.invalid(.encoderFailure, "x264_encoder_encode failed") }
        guard size > 0, let nals, count > 0 else { return [] }
        var storage: [UInt8] = []
        storage.reserveCapacity(Int(size))
        var ranges: [Range<Int>] = []
        for i in 0..<Int(count) {
            // b_annexb = 0: each payload is a 4-byte big-endian length, then the NAL unit.
            let n = nals[i]
            guard n.i_payload > 4, let base = n.p_payload else { continue }
            let start = storage.count
            storage.append(contentsOf: UnsafeBufferPointer(start: base + 4, count: Int(n.i_payload) - 4))
            ranges.append(start..<storage.count)
        }
        return [try EncodedFrame(storage: storage, ranges: ranges, pts: out.i_pts, dts: out.i_dts, timescale: timescale)]
    }

    private static func encodeCall(_ handle: OpaquePointer, _ pic: inout x264_picture_t,
                                   timescale: Int32) throws(H264Error) -> [EncodedFrame] {
        try withUnsafeMutablePointer(to: &pic) { (p: UnsafeMutablePointer<x264_picture_t>) throws(H264Error) -> [EncodedFrame] in
            try encodeCall(handle, p, timescale: timescale)
        }
    }

    /// Attaches a display orientation SEI payload; x264 frees it with `free` once written.
    private static func attach(_ orientation: Orientation, to pic: inout x264_picture_t) {
        let payload = orientation.displayOrientationPayload
        guard let entry = malloc(MemoryLayout<x264_sei_payload_t>.size)?.assumingMemoryBound(to: x264_sei_payload_t.self),
              let bytes = malloc(payload.count)?.assumingMemoryBound(to: UInt8.self) else { return }
        payload.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: payload.count) }
        entry.initialize(to: x264_sei_payload_t(payload_size: Int32(payload.count),
                                                payload_type: Int32(Orientation.displayOrientationPayloadType),
                                                payload: bytes))
        pic.extra_sei.num_payloads = 1
        pic.extra_sei.payloads = entry
        pic.extra_sei.sei_free = free
    }

    /// Points `pic`'s planes at `frame`'s (or, for 10-bit output, at 16-bit copies scaled by 4)
    /// for the duration of `body`.
    private static func withPicture<R>(_ frame: VideoFrame, highDepth: Bool, scratch: inout [UInt16],
                                       _ pic: inout x264_picture_t,
                                       _ body: (inout x264_picture_t) throws(H264Error) -> R) throws(H264Error) -> R {
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
            pic.img.i_csp = csp | X264_CSP_HIGH_DEPTH
            var offsets: [Int] = []
            var total = 0
            for (i, plane) in planes.enumerated() {
                guard let g = frame.format.planeGeometry(i, width: frame.width, height: frame.height) else { continue }
                offsets.append(total)
                total += g.rowBytes * g.rows
                _ = plane
            }
            if scratch.count != total { scratch = [UInt16](repeating: 0, count: total) }
            for (i, plane) in planes.enumerated() {
                guard let g = frame.format.planeGeometry(i, width: frame.width, height: frame.height) else { continue }
                for y in 0..<g.rows {
                    let src = y * plane.bytesPerRow, dst = offsets[i] + y * g.rowBytes
                    for x in 0..<g.rowBytes { scratch[dst + x] = UInt16(plane.bytes[src + x]) << 2 }
                }
            }
            return try scratch.withUnsafeMutableBufferPointer { (buf: inout UnsafeMutableBufferPointer<UInt16>) throws(H264Error) -> R in
                let base = UnsafeMutableRawPointer(buf.baseAddress!)
                for (i, _) in planes.enumerated() {
                    guard let g = frame.format.planeGeometry(i, width: frame.width, height: frame.height) else { continue }
                    let ptr = (base + offsets[i] * 2).assumingMemoryBound(to: UInt8.self)
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
                                      _ body: (inout x264_picture_t) throws(H264Error) -> R) throws(H264Error) -> R {
        guard index < planes.count else { return try body(&pic) }
        return try planes[index].bytes.withUnsafeBufferPointer { (buf: UnsafeBufferPointer<UInt8>) throws(H264Error) -> R in
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
