import H264
import H264Fixtures
import MP4
import Testing

/// The guide's first example (Docs/MP4.md), as written there, compiles and writes a file.
@Suite struct DocExampleTests {
    @Test func annexBToMP4AsTheGuideWritesIt() throws {
        let file = MP4MemoryFile()
        var recorder = MP4AnnexBRecorder { timescale in
            try MP4Writer(file: file, options: .init(timescale: timescale))
        }
        for chunk in [Fixture.mainCABACBFrames.bytes()] { try recorder.append(chunk) }
        let summary = try recorder.finish()
        #expect(summary.sampleCount == Fixture.mainCABACBFrames.facts.frameCount)
        #expect(try MP4Reader(file.bytes).videoTrack?.sampleCount == summary.sampleCount)
    }
}

/// `MP4Recorder` with the core's `EncodedFrame`s (an encoder's output type), in every mode.
@Suite struct MP4RecorderTests {
    /// The fixture's access units as an encoder would return them: 90 kHz, DTS from -2 frames.
    static func frames(_ fixture: Fixture) throws -> [EncodedFrame] {
        let (units, _) = AccessUnits.assemble(annexB: fixture.bytes()[...])
        return units.filter { !$0.flags.hasNoPicture }.compactMap { au in
            guard let t = au.timestamps(timescale: 90_000) else { return nil }
            return EncodedFrame(nalUnits: au.nalUnits, pts: t.pts, dts: t.dts - 7_200, timescale: 90_000)
        }
    }

    @Test(arguments: [MP4Recorder.Mode.fragmented(), .fragmented(fragmentDuration: .milliseconds(50)), .progressive(.fastStart),
                      .progressive(.mediaFirst)])
    func recordsEncodedFrames(_ mode: MP4Recorder.Mode) throws {
        let frames = try Self.frames(.highBPyramid)
        let file = MP4MemoryFile()
        let recorder = MP4Recorder(file: file, mode: mode)
        for frame in frames { try recorder.write(frame) }
        try recorder.finish()
        #expect(recorder.frameCount == frames.count)
        let reader = try MP4Reader(file.bytes)
        let track = try #require(reader.videoTrack)
        let infos = try reader.sampleInfos(of: track)
        #expect(infos.count == frames.count)
        #expect(infos.map { $0.flags.isSync } == frames.map(\.isSyncSample))
        // Presentation order and steps as the encoder said, starting at 0.
        let ptsOrder = infos.indices.sorted { infos[$0].presentationTime < infos[$1].presentationTime }
        #expect(ptsOrder == frames.indices.sorted { frames[$0].pts < frames[$1].pts })
        #expect(infos.map(\.presentationTime).min() == 0)
        #expect(reader.isFragmented == (mode != .progressive(.fastStart) && mode != .progressive(.mediaFirst)))
    }
}
