import H264
import Testing
@testable import X264
import TestSupport

@Suite struct X264ErrorTests {
    /// One reference wide, as `H264Error`: cheap on every typed throw.
    @Test func errorIsOneWord() {
        #expect(MemoryLayout<X264Error>.size == MemoryLayout<Int>.size)
    }

    /// Through `any FrameEncoder` the encoder's own error arrives unchanged (as `any Error`); a
    /// refused timestamp does not end the encoder.
    @Test func anyFrameEncoderThrowsTheEncodersError() throws {
        let encoder: any FrameEncoder = try X264Encoder(options: X264Support.config())
        let frame = try VideoFrame(width: 160, height: 96, format: .i420, pts: 1, timescale: 30)
        _ = try encoder.encode(frame)
        do {
            _ = try encoder.encode(frame)
            Issue.record("a repeated pts was accepted")
        } catch let error as X264Error {
            #expect(error.code == .invalidTimestamp)
        }
        var next = frame
        next.pts = 2
        _ = try encoder.encode(next)
        #expect(try encoder.flush().count == 2)
    }

    /// An error of the core met inside the encoder is wrapped the one way: code `h264`, the
    /// core's error in `underlying`; equality by code.
    @Test func coreErrorsAreWrapped() {
        let wrapped = X264Error.h264(.truncated("cut"))
        #expect(wrapped.code == .h264)
        #expect(wrapped.underlying(as: H264Error.self) == H264Error(.truncated, ""))
        #expect(wrapped.description == "X264Error.h264: truncated: cut")
        #expect(wrapped == X264Error(.h264, "another reason") && wrapped != X264Error(.encoderFailure, "cut"))
    }
}
