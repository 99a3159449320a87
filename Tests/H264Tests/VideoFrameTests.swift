import Testing
@testable import H264

@Suite struct VideoFrameTests {
    @Test func planeGeometry() {
        #expect(PixelFormat.i420.planeGeometry(1, width: 5, height: 3)! == (3, 2))
        #expect(PixelFormat.nv12.planeGeometry(1, width: 6, height: 4)! == (6, 2))
        #expect(PixelFormat.i422.planeGeometry(2, width: 6, height: 4)! == (3, 4))
        #expect(PixelFormat.bgra.planeGeometry(0, width: 6, height: 4)! == (24, 4))
        #expect(PixelFormat.i420.planeGeometry(3, width: 6, height: 4) == nil)
        #expect(PixelFormat.i420.planeGeometry(0, width: 0, height: 4) == nil)
    }

    @Test func stridesLargerThanWidthAreAccepted() throws {
        let f = try VideoFrame(width: 6, height: 4, format: .nv12, planes: [
            .init(bytes: .init(repeating: 0, count: 16 * 3 + 6), bytesPerRow: 16),
            .init(bytes: .init(repeating: 0, count: 16 + 6), bytesPerRow: 16),
        ])
        #expect(f.planes[0].bytesPerRow == 16)
        let aligned = try VideoFrame(width: 100, height: 10, format: .i420, alignment: 64)
        #expect(aligned.planes[0].bytesPerRow == 128 && aligned.planes[1].bytesPerRow == 64)
    }

    @Test func badPlanesThrow() {
        #expect(throws: H264Error(.invalidArgument, "")) {
            try VideoFrame(width: 4, height: 4, format: .i420, planes: [.init(bytes: [0], bytesPerRow: 4)])
        }
        #expect(throws: H264Error(.invalidArgument, "")) {  // stride below the row size
            try VideoFrame(width: 4, height: 1, format: .bgra, planes: [.init(bytes: .init(repeating: 0, count: 16), bytesPerRow: 8)])
        }
        #expect(throws: H264Error(.invalidArgument, "")) {  // last row does not fit
            try VideoFrame(width: 4, height: 2, format: .bgra, planes: [.init(bytes: .init(repeating: 0, count: 31), bytesPerRow: 16)])
        }
        #expect(throws: H264Error(.invalidArgument, "")) { try VideoFrame(width: 0, height: 2, format: .bgra) }
        #expect(throws: H264Error(.invalidArgument, "")) { try VideoFrame(width: 2, height: 2, format: .bgra, timescale: 0) }
    }

    @Test func orientationSEIPayload() {
        // cancel 0, hor_flip 0, ver_flip 0, rotation 0x4000 (90 degrees anticlockwise), period ue(1) = 010, ext 0, align 1.
        let o = Orientation(rotation: .clockwise270)
        #expect(o.anticlockwiseRotation == 0x4000)
        #expect(o.displayOrientationPayload == [0b0000_1000, 0b0000_0000, 0b0000_1001])
        #expect(Orientation(rotation: .clockwise90, mirrored: true).anticlockwiseRotation == 0xC000)
        #expect(Orientation.identity.displayOrientationPayload.count == 3)
    }

    /// Every quarter turn, mirrored or not, survives the SEI message and back; a vertical flip
    /// is a horizontal one turned by 180 degrees; a cancelled message is the identity; and the
    /// first display orientation message of an access unit is found among its NAL units.
    @Test func orientationFromTheSEIMessage() throws {
        for rotation in Orientation.Rotation.allCases {
            for mirrored in [false, true] {
                let o = Orientation(rotation: rotation, mirrored: mirrored)
                #expect(Orientation(o.displayOrientation) == o)
            }
        }
        var flipped = SEIDisplayOrientation()
        flipped.verticalFlip = true
        #expect(Orientation(flipped) == Orientation(rotation: .rotate180, mirrored: true))
        flipped.horizontalFlip = true
        #expect(Orientation(flipped) == Orientation(rotation: .rotate180))
        var nearly = SEIDisplayOrientation()
        nearly.anticlockwiseRotation = 0x4000 + 900  // 95 degrees anticlockwise: the nearest quarter turn
        #expect(Orientation(nearly) == Orientation(rotation: .clockwise270))
        var cancelled = Orientation(rotation: .clockwise90).displayOrientation
        cancelled.cancel = true
        #expect(Orientation(cancelled) == .identity)

        let wanted = Orientation(rotation: .clockwise90, mirrored: true)
        let sei = try SEINALUnit(messages: [SEIMessage(.userDataUnregistered(SEIUserDataUnregistered(uuid: Array(repeating: 7, count: 16), payload: [1, 2]))),
                                            SEIMessage(.displayOrientation(wanted.displayOrientation))]).nalUnit()
        let slice = try NALUnit([0x65, 0x88, 0x84])
        #expect(Orientation.displayOrientation(in: [sei, slice]) == wanted)
        #expect(Orientation.displayOrientation(in: [slice]) == nil)
    }
}
