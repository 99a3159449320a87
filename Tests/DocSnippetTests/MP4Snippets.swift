import Foundation
import H264
import MP4
import TestSupport
import X264
import Testing

/// The snippets of the MP4 catalog (Sources/MP4/MP4.docc); each marked region is shown, as it
/// is, in an article (Docs/check-snippets.py checks it).
@Suite struct MP4Snippets {
    /// An encoder with a keyframe every second at 30 frames a second, and its frames.
    static func encoderAndFrames(seconds: Int) throws -> (X264Encoder, [VideoFrame]) {
        var config = X264Encoder.Options(width: 320, height: 180)
        config.maxKeyframeInterval = 30
        config.expectedFrameRate = 30                 // VUI timing, for the parsed stream below
        return (try X264Encoder(options: config), try SnippetSupport.frames(count: 30 * seconds, width: 320, height: 180))
    }

    /// The `EXTINF` durations of a playlist, in seconds.
    static func segmentDurations(_ playlist: String) -> [Double] {
        playlist.split(separator: "\n").compactMap { line in
            line.hasPrefix("#EXTINF:") ? Double(line.dropFirst(8).prefix { $0 != "," }) : nil
        }
    }

    @Test func mp4Recorder() throws {
        let (encoder, pictures) = try Self.encoderAndFrames(seconds: 1)
        let path = try Support.temporaryDirectory() + "/rec.mp4"
        // snippet: mp4-recorder
        let recorder = MP4Recorder(file: try MP4File(creatingAtPath: path), mode: .progressive(.fastStart),
                                   parameterSets: encoder.parameterSets)
        for picture in pictures {
            for frame in try encoder.encode(picture) { try recorder.write(frame) }
        }
        for frame in try encoder.flush() { try recorder.write(frame) }
        try recorder.finish()                          // writes the moov: the file plays
        // end snippet
        let reader = try MP4Reader(MP4File(readingAtPath: path))
        #expect(!reader.isFragmented)
        let track = try #require(reader.tracks.first)
        #expect(track.sampleCount == pictures.count)
        #expect(track.displaySize == (width: 320, height: 180))
        #expect(track.duration == .seconds(1))
    }

    @Test func hlsRecorder() throws {
        let (encoder, pictures) = try Self.encoderAndFrames(seconds: 3)
        let directory = try Support.temporaryDirectory() + "/live"
        // snippet: hls-recorder
        let hls = HLSRecorder(directory: directory, targetDuration: .seconds(2),
                              parameterSets: encoder.parameterSets)
        for picture in pictures {
            for frame in try encoder.encode(picture) { try hls.write(frame) }   // any AccessUnitSample
        }
        for frame in try encoder.flush() { try hls.write(frame) }
        try hls.finish()                               // index.m3u8 ends with EXT-X-ENDLIST
        // end snippet
        let playlist = try String(contentsOfFile: directory + "/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-ENDLIST"))
        #expect(playlist.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        // Keyframes every second, 2 s asked for: 2 s, then the last second.
        let durations = Self.segmentDurations(playlist)
        #expect(durations.count == 2)
        #expect(abs((durations.first ?? 0) - 2) < 0.001)
        #expect(abs(durations.reduce(0, +) - 3) < 0.04)
        #expect(FileManager.default.fileExists(atPath: directory + "/segment-00002.m4s"))
    }

    @Test func sampleBuilderAndSegmentWriter() throws {
        let (encoder, pictures) = try Self.encoderAndFrames(seconds: 3)
        var annexB: [UInt8] = []
        for picture in pictures {
            for frame in try encoder.encode(picture) { annexB += frame.annexBSample(parameterSets: encoder.parameterSets) }
        }
        for frame in try encoder.flush() { annexB += frame.annexBSample(parameterSets: encoder.parameterSets) }
        let (accessUnits, errors) = AccessUnits.assemble(annexB: annexB[...])
        #expect(errors.isEmpty)
        let directory = try Support.temporaryDirectory() + "/out"
        // snippet: hls-segment-writer
        var builder = MP4SampleBuilder(timescale: 90_000)    // the samples' clock: any
        let writer = try HLSSegmentWriter(directory: directory,
                                          options: .init(targetDuration: .seconds(2)))   // a Duration
        for au in accessUnits where !au.flags.hasNoPicture {
            let (description, sample) = try builder.sample(au)
            try writer.append(sample, description: description)
        }
        try writer.finish()
        // end snippet
        let playlist = try String(contentsOfFile: directory + "/index.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-TARGETDURATION:2"))
        let durations = Self.segmentDurations(playlist)
        #expect(durations.count == 2)
        #expect(abs((durations.first ?? 0) - 2) < 0.001)
        #expect(abs(durations.reduce(0, +) - 3) < 0.04)
    }
}
