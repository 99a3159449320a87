import Testing
import H264
import X264
import H264Video
import TestSupport

/// Periodic intra refresh: one IDR picture, then refresh cycles that each start with a
/// recovery point SEI, at most the keyframe interval apart.
@Suite struct X264IntraRefreshTests {
    /// Intra refresh without B-frames, a refresh cycle every `interval` frames.
    static func encoder(interval: Int? = 5, seconds: Double? = nil) throws -> X264Encoder {
        try X264Encoder(options: X264Support.config {
            $0.periodicIntraRefresh = true
            $0.maxConsecutiveBFrames = 0
            $0.maxKeyframeInterval = interval
            $0.maxKeyframeIntervalDuration = seconds
        })
    }

    /// Encodes `count` frames of the moving colour bars (each frame a scene cut to x264's
    /// detector at this size) and parses the Annex-B stream back with the core's parser.
    static func encode(_ encoder: X264Encoder, count: Int, forced: Set<Int> = []) throws -> (stream: [UInt8], units: [AccessUnit]) {
        let out = try X264Support.encode(encoder, count: count, forced: forced, inBandParameterSets: false)
        let stream = out.flatMap { $0.annexBSample(parameterSets: encoder.parameterSets) }
        var parser = AccessUnitParser()
        parser.append(stream)
        parser.finish()
        var units: [AccessUnit] = []
        while let au = try parser.next() { units.append(au) }
        return (stream, units)
    }

    /// Frame numbers (decoding order is presentation order without B-frames) of the IDR
    /// access units and of those that start random access with a recovery point SEI only.
    static func structure(_ units: [AccessUnit]) -> (idr: [Int], recovery: [Int]) {
        let idr = units.indices.filter { i in units[i].nalUnits.contains { $0.type == .idrSlice } }
        let recovery = units.indices.filter { units[$0].isRandomAccessPoint && !units[$0].isSyncSample }
        return (idr, recovery)
    }

    @Test func oneIDRThenARecoveryPointPerCycle() throws {
        let (_, units) = try Self.encode(Self.encoder(), count: 20)
        #expect(units.count == 20)
        let s = Self.structure(units)
        #expect(s.idr == [0], "only the first picture is an IDR")
        #expect(units.filter(\.isSyncSample).count == 1)
        #expect(s.recovery == [5, 10, 15], "a refresh cycle starts every 5 frames")
        for i in s.recovery { #expect(units[i].flags.recoveryFrameCount != nil) }
    }

    @Test func keyframeIntervalInSecondsBoundsTheCycle() throws {
        // 0.25 s at 30 fps: 7 frames, fewer than the 20-frame interval.
        let (_, units) = try Self.encode(Self.encoder(interval: 20, seconds: 0.25), count: 22)
        let s = Self.structure(units)
        #expect(s.idr == [0])
        #expect(s.recovery == [7, 14, 21])
    }

    /// A requested refresh starts a cycle at the next picture x264 encodes — behind the input by
    /// its lookahead (`delayedFrames`) — long before the interval would, with no IDR; without
    /// the request the only cycle after the IDR is at the interval.
    @Test func requestedRefreshStartsACycleBeforeTheInterval() throws {
        let plain = Self.structure(try Self.encode(Self.encoder(interval: 30), count: 36).units)
        #expect(plain.idr == [0])
        #expect(plain.recovery == [30])

        let encoder = try Self.encoder(interval: 30)
        let source = try TestPatternSource(width: encoder.options.width, height: encoder.options.height, frameCount: 36)
        var out: [EncodedFrame] = []
        var nextEncoded = 0
        for i in 0..<36 {
            if i == 12 {
                try encoder.requestIntraRefresh()
                nextEncoded = out.count  // no B-frames: output order is input order
            }
            out += try encoder.encode(try source.makeFrame(i))
        }
        out += try encoder.flush()
        var parser = AccessUnitParser()
        parser.append(out.flatMap { $0.annexBSample(parameterSets: encoder.parameterSets) })
        parser.finish()
        var units: [AccessUnit] = []
        while let au = try parser.next() { units.append(au) }
        let requested = Self.structure(units)
        #expect(units.count == 36)
        #expect(requested.idr == [0], "a refresh, not an IDR")
        let first = try #require(requested.recovery.first, "no refresh cycle started")
        #expect(first == nextEncoded, "the requested cycle starts at \(first): \(requested.recovery)")
        #expect(requested.recovery == [nextEncoded, nextEncoded + 30], "the periodic cycles count from the requested one")
    }

    @Test func refreshRequestNeedsPeriodicIntraRefresh() throws {
        let encoder = try X264Encoder(options: X264Support.config())
        #expect(throws: X264Error.self) { try encoder.requestIntraRefresh() }
        let refreshing = try Self.encoder()
        _ = try refreshing.flush()
        #expect(throws: X264Error.self) { try refreshing.requestIntraRefresh() }
    }

    @Test func forcedKeyframeIsStillAnIDR() throws {
        let (_, units) = try Self.encode(Self.encoder(), count: 20, forced: [12])
        let s = Self.structure(units)
        #expect(s.idr == [0, 12], "a forced keyframe is an IDR picture, refresh or not")
        // The IDR restarts the count: the next cycle starts 5 frames after it.
        #expect(s.recovery == [5, 10, 17])
    }

    @Test(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
    func ffmpegDecodesEveryFrame() throws {
        let (stream, _) = try Self.encode(Self.encoder(), count: 20)
        let ffmpeg = try X264Support.ffmpegView(stream)
        #expect(ffmpeg.errors.isEmpty, "\(ffmpeg.errors)")
        #expect(ffmpeg.frameCount == 20)
        // FFmpeg calls only the IDR a key frame (a refresh start is a P picture to it).
        #expect(ffmpeg.keyFrames == 1, "\(ffmpeg.frames)")
    }
}
