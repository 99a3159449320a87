import Foundation
import H264
import H264Fixtures
import MP4
import Testing
import TestSupport

/// A capture's orientation reaches MP4 as `tkhd`'s transformation matrix (what browsers, MSE and
/// AVPlayer apply; they ignore the display orientation SEI), in every layout, and reads back.
@Suite struct MP4OrientationTests {
    typealias S = MP4TestSupport

    static let all: [Orientation] = Orientation.Rotation.allCases.flatMap { r in [false, true].map { Orientation(rotation: r, mirrored: $0) } }

    /// Writes the baseline fixture with `orientation` in a progressive or a fragmented file.
    static func file(_ orientation: Orientation, fragmented: Bool) throws -> [UInt8] {
        let samples = try S.samples(Fixture.baselineCAVLC.bytes())
        let timescale = try #require(S.timescale(Fixture.baselineCAVLC.bytes()))
        let file = MP4MemoryFile()
        let writer: any MP4SampleWriting
        if fragmented {
            var o = MP4FragmentWriter.Options(timescale: timescale, targetDuration: .seconds(1), cutting: .anySample)
            o.orientation = orientation
            writer = try MP4FragmentedFileWriter(file: file, options: o)
        } else {
            var o = MP4Writer.Options(timescale: timescale)
            o.orientation = orientation
            writer = try MP4Writer(file: file, options: o)
        }
        for (d, s) in samples { try writer.append(s, description: d) }
        try writer.finish()
        return file.bytes
    }

    @Test(arguments: [false, true])
    func everyOrientationReadsBack(_ fragmented: Bool) throws {
        for orientation in Self.all {
            let track = try #require(try MP4Reader(Self.file(orientation, fragmented: fragmented)).videoTrack)
            #expect(track.orientation == orientation, "\(orientation)")
        }
    }

    /// The matrix as FFmpeg writes it for a 90-degree rotation: 0 1 -1 0, moved right by the
    /// picture's height; unity without an orientation.
    @Test func matrixValues() throws {
        let bytes = try Self.file(Orientation(rotation: .clockwise90), fragmented: false)
        let tkhd = try #require(try S.payload(["moov", "trak", "tkhd"], in: bytes))
        let matrix = (0..<9).map { S.u32(tkhd, 40 + 4 * $0) }
        let track = try #require(try MP4Reader(bytes).videoTrack)
        let height = UInt32(track.descriptions[0].height)
        #expect(matrix == [0, 0x1_0000, 0, 0xFFFF_0000, 0, 0, height << 16, 0, 0x4000_0000])
        let plain = try #require(try S.payload(["moov", "trak", "tkhd"], in: try Self.file(.identity, fragmented: false)))
        #expect((0..<9).map { S.u32(plain, 40 + 4 * $0) } == [0x1_0000, 0, 0, 0, 0x1_0000, 0, 0, 0, 0x4000_0000])
    }

    /// FFmpeg reads the rotation from the matrix (its display matrix side data): a picture to
    /// be turned 90 degrees clockwise is "rotation of -90 degrees" to it.
    @Test(.enabled(if: FFmpeg.isPresent, "needs ffprobe"), arguments: [(Orientation.Rotation.clockwise90, "-90"), (.rotate180, "180"), (.clockwise270, "90")])
    func ffprobeSeesTheRotation(_ rotation: Orientation.Rotation, _ expected: String) throws {
        for fragmented in [false, true] {
            let path = try S.temporaryFile(try Self.file(Orientation(rotation: rotation), fragmented: fragmented))
            let r = try FFmpeg.ffprobe(["-v", "error", "-select_streams", "v", "-show_entries", "stream_side_data=rotation",
                                        "-of", "csv=p=0", path])
            let value = r.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let degrees = try #require(Double(value), "\(rotation) fragmented \(fragmented): '\(value)' \(r.stderr)")
            // An angle, so -180 and 180 are the same.
            #expect((degrees - Double(expected)!).truncatingRemainder(dividingBy: 360) == 0, "\(rotation): \(degrees)")
        }
    }

    /// `MP4Recorder` takes the orientation from the first frame's display orientation SEI (what
    /// the encoder writes for a frame with an orientation) unless told one.
    @Test func recorderTakesTheOrientationOfTheFirstFrame() throws {
        let wanted = Orientation(rotation: .clockwise270)
        let sei = try SEINALUnit(messages: [SEIMessage(.displayOrientation(wanted.displayOrientation))]).nalUnit()
        let (units, _) = AccessUnits.assemble(annexB: Fixture.baselineCAVLC.bytes()[...])
        for given in [nil, Orientation(rotation: .rotate180)] as [Orientation?] {
            let file = MP4MemoryFile()
            let recorder = MP4Recorder(file: file, mode: .progressive(.fastStart), orientation: given)
            for (k, au) in units.enumerated() where !au.flags.hasNoPicture {
                let nal = k == 0 ? [sei] + au.nalUnits : au.nalUnits
                try recorder.write(EncodedFrame(nalUnits: nal, pts: Int64(k) * 3000, dts: Int64(k) * 3000, timescale: 90_000))
            }
            try recorder.finish()
            #expect(recorder.orientation == given ?? wanted)
            #expect(try MP4Reader(file.bytes).videoTrack?.orientation == given ?? wanted)
        }
    }
}
