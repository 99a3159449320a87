import Foundation
import Testing
import FLV
import H264
import MP4
import TestSupport
@testable import RTMP

/// Real publishers into `RTMPServer` on a loopback port: FFmpeg (`-re`, with its AAC audio) and
/// GStreamer's `rtmp2sink`. What the server hands out is recorded with the library's writers
/// (`FLVWriter` for audio and video as sent, `MP4Recorder` for the video) and compared with the
/// source by ffprobe: packet count, sizes, key flags, DTS and PTS.
@Suite(.serialized) struct RealPublisherTests {
    static let corpusStream = "cros-codecs/test-25fps.h264"
    static var canRun: Bool { FFmpeg.isPresent && Corpus.isPresent }

    /// One ffprobe packet.
    struct Packet: Equatable, CustomStringConvertible {
        var type: String
        var size: Int
        var key: Bool
        var dts: Double
        var pts: Double
        var description: String { "\(type) \(size)\(key ? " K" : "") dts \(dts) pts \(pts)" }
    }

    /// The packets of `path` (times in seconds), in file order.
    static func probe(_ path: String) throws -> [Packet] {
        let r = try FFmpeg.ffprobe(["-v", "error", "-show_entries", "packet=codec_type,size,flags,dts_time,pts_time",
                                    "-of", "csv=p=0", path]).checked("ffprobe \(path)")
        return r.output.split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Packet(type: f[0], size: Int(f[3]) ?? -1, key: f[4].hasPrefix("K"),
                          dts: Double(f[2]) ?? .nan, pts: Double(f[1]) ?? .nan)
        }
    }

    /// A 2-second source: the first 50 frames of a corpus stream (25 fps, parameter sets out of
    /// band only, so that an MP4 recording's samples are the FLV's byte for byte) and FFmpeg's
    /// AAC of a sine, in FLV.
    static func source(in dir: String) throws -> String {
        let video = dir + "/v.mp4", source = dir + "/source.flv"
        try FFmpeg.ffmpeg(["-v", "error", "-y", "-fflags", "+genpts", "-r", "25", "-i", Corpus.path(corpusStream),
                           "-frames:v", "50", "-c:v", "copy", video], timeout: 30).checked("ffmpeg mp4")
        try FFmpeg.ffmpeg(["-v", "error", "-y", "-i", video, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
                           "-shortest", "-c:v", "copy", "-bsf:v", "filter_units=remove_types=7|8", "-c:a", "aac", "-b:a", "64k",
                           "-f", "flv", source], timeout: 30).checked("ffmpeg flv")
        return source
    }

    /// Records the first publish of `server`: every event into an FLV file (audio and video, as
    /// sent) and the video into an MP4 file through `MP4Recorder`; returns the publish's request,
    /// its statistics and how it ended.
    static func record(_ server: RTMPServer, flv: String, mp4: String)
        -> Task<(RTMPPublishRequest, RTMPIngestStream.Statistics, (any Error)?), any Error> {
        Task {
            var streams = server.publishedStreams.makeAsyncIterator()
            guard let ingest = try await streams.next() else { throw RTMPError(.connectionClosed, "no publish") }
            var writer = FLVWriter(header: FLVHeader(hasAudio: true, hasVideo: true))
            let recorder = MP4Recorder(file: try MP4File(creatingAtPath: mp4), mode: .progressive(.fastStart))
            var failure: (any Error)?
            do {
                for try await event in ingest {
                    switch event {
                    case .metadata(let metadata): try writer.writeMetadata(metadata)
                    case .decoderConfiguration(let avcC, let time): try writer.writeDecoderConfiguration(avcC, timestamp: time)
                    case .video(let accessUnit):
                        try writer.writeSample(accessUnit.flvSample)
                        try recorder.write(accessUnit)
                    case .endOfSequence(let time): try writer.writeEndOfSequence(timestamp: time)
                    case .tag(let tag, _): try writer.writeTag(tag)
                    }
                }
            } catch {
                failure = error
            }
            if recorder.frameCount > 0 { try recorder.finish() }
            _ = FileManager.default.createFile(atPath: flv, contents: Data(writer.takeBytes()))
            return (ingest.request, ingest.statistics, failure)
        }
    }

    /// `ffmpeg -re -i source.flv -c copy -f flv rtmp://127.0.0.1:PORT/live/KEY`: the FLV
    /// recording has every packet of the source, audio and video (count, size, key flag, DTS,
    /// PTS), and the MP4 recording (MP4Recorder, fed the access units as they came) has every
    /// video packet with the same sizes, key flags and times.
    @Test(.enabled(if: canRun, "needs ffmpeg, ffprobe and the corpus"), .timeLimit(.minutes(5)))
    func ffmpegPublishesWithAudio() async throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.source(in: dir)
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: IngestServerTests.allowing())
        defer { server.close() }
        let recording = Self.record(server, flv: dir + "/rec.flv", mp4: dir + "/rec.mp4")
        let run = try FFmpeg.ffmpeg(["-v", "error", "-re", "-i", source, "-c", "copy", "-f", "flv",
                                     "rtmp://127.0.0.1:\(server.localPort)/live/ffmpeg-key"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let (request, statistics, failure) = try await recording.value
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(request.streamName == "ffmpeg-key")
        #expect(request.flashVersion?.hasPrefix("FMLE/3.0") == true)

        let expected = try Self.probe(source)
        let flv = try Self.probe(dir + "/rec.flv")
        #expect(expected.filter { $0.type == "audio" }.count > 50)
        #expect(flv.filter { $0.type == "video" } == expected.filter { $0.type == "video" })
        #expect(flv.filter { $0.type == "audio" } == expected.filter { $0.type == "audio" })
        #expect(statistics.accessUnits == 50)

        let mp4 = try Self.probe(dir + "/rec.mp4")
        let video = expected.filter { $0.type == "video" }
        #expect(mp4.map(\.size) == video.map(\.size))
        #expect(mp4.map(\.key) == video.map(\.key))
        #expect(zip(mp4, video).allSatisfy { abs($0.dts - $1.dts) < 0.0005 && abs($0.pts - $1.pts) < 0.0005 },
                "\(mp4.prefix(4)) vs \(video.prefix(4))")
        let decode = try FFmpeg.decode(dir + "/rec.mp4")
        #expect(decode.status == 0)
    }

    /// GStreamer's `rtmp2sink` publishing an MP4's video (`qtdemux ! h264parse ! flvmux`): every
    /// frame arrives, with the source's key flags and presentation times, and the first is a
    /// sync sample with its parameter sets.
    @Test(.enabled(if: canRun && Support.gstLaunch(with: ["rtmp2sink", "flvmux", "qtdemux", "h264parse"]) != nil,
                   "needs GStreamer's rtmp2sink, flvmux, qtdemux, h264parse, ffmpeg and the corpus"),
          .timeLimit(.minutes(5)))
    func gstreamerRTMP2SinkPublishes() async throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.source(in: dir)
        let server = try RTMPServer(host: "127.0.0.1", port: 0, options: IngestServerTests.allowing())
        defer { server.close() }
        let collecting = IngestServerTests.collectFirstPublish(server)
        let launch = try #require(Support.gstLaunch(with: ["rtmp2sink"]))
        let run = try Support.run(launch, ["-q", "filesrc", "location=\(dir)/v.mp4", "!", "qtdemux", "!", "h264parse", "!",
                                           "flvmux", "streamable=true", "!",
                                           "rtmp2sink", "location=rtmp://127.0.0.1:\(server.localPort)/live/gst-key"],
                                  timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let (ingest, events, failure) = try await collecting.value
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(ingest.request.streamName == "gst-key")
        let samples = IngestServerTests.videoSamples(events)
        let source = try Self.probe(dir + "/v.mp4").filter { $0.type == "video" }
        #expect(samples.count == source.count)
        #expect(samples.map(\.isKeyframe) == source.map(\.key))
        // The MP4's first frame is at -40 ms, which FLV cannot carry: flvmux sends it at 0.
        let sent = source.map { max(0, ($0.pts * 1000).rounded()) / 1000 }
        #expect(samples.map { Double($0.timestamps?.pts ?? -1) / 1000 } == sent)
        #expect(samples.first?.isSyncSample == true)
        #expect(samples.first?.nalUnits.contains { $0.type == .sps } == true)
    }
}
