import Testing
@testable import H264

/// A test double: every frame becomes one access unit (an IDR picture every `gop` frames,
/// otherwise a disposable non-reference picture), with one frame of delay.
final class FakeEncoder: FrameEncoder {
    let gop: Int
    private var pending: VideoFrame?
    private var count = 0
    private(set) var bitrate = 0
    private(set) var limits: [DataRateLimit] = []

    init(gop: Int) { self.gop = gop }

    func encode(_ frame: VideoFrame, options: FrameEncodeOptions) throws(H264Error) -> [EncodedFrame] {
        let previous = pending
        pending = frame
        count += 1
        guard let previous else { return [] }
        return [try unit(previous, idr: options.forceKeyframe || (count - 2) % gop == 0)]
    }

    func flush() throws(H264Error) -> [EncodedFrame] {
        defer { pending = nil }
        guard let pending else { return [] }
        return [try unit(pending, idr: false)]
    }

    func setAverageBitrate(_ bitsPerSecond: Int) throws(H264Error) { bitrate = bitsPerSecond }
    func setDataRateLimits(_ limits: [DataRateLimit]) throws(H264Error) { self.limits = limits }
    var parameterSets: [NALUnit] { [try! NALUnit([0x67, 0x42, 0x00, 0x0A]), try! NALUnit([0x68, 0xCE])] }

    private func unit(_ f: VideoFrame, idr: Bool) throws(H264Error) -> EncodedFrame {
        // first_mb_in_slice 0 (1), slice_type 7 or 5 (0001000 / 00110), then a stop bit.
        let slice: [UInt8] = idr ? [0x65, 0x88, 0x80] : [0x01, 0x98]
        return EncodedFrame(nalUnits: (idr ? parameterSets : []) + [try NALUnit(slice)], pts: f.pts, dts: f.pts, timescale: f.timescale)
    }
}

@Suite struct FrameEncoderTests {
    @Test func anyEncoderCanConform() throws {
        let encoder: any FrameEncoder = FakeEncoder(gop: 3)
        var out: [EncodedFrame] = []
        for i in 0..<7 {
            out += try encoder.encode(try VideoFrame(width: 16, height: 16, format: .i420, pts: Int64(i) * 3000))
        }
        out += try encoder.flush()
        #expect(out.count == 7)
        #expect(out.map(\.isKeyframe) == [true, false, false, true, false, false, false])
        #expect(out.map(\.flags.isDependedOnByOthers) == [true, false, false, true, false, false, false])
        #expect(out.map(\.flags.dependsOnOthers) == [false, true, true, false, true, true, true])
        #expect(out[0].flags.hasParameterSets && !out[1].flags.hasParameterSets)
        try encoder.setAverageBitrate(1_000)
        #expect((encoder as? FakeEncoder)?.bitrate == 1_000)
    }
}
