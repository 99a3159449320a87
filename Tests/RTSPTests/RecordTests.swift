import Foundation
import H264
import H264Fixtures
import MediaSupport
import RTP
@testable import RTSP
import Testing
import TestSupport

/// Publishing to an RTSP server (`ANNOUNCE`, `SETUP` with `mode=record`, `RECORD`), against
/// FFmpeg's RTSP input in listen mode as the server: what it records is what was sent.
@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg and ffprobe"))
struct RecordTests {
    /// The baseline fixture published at 25 fps (timestamps, not real time) to
    /// `ffmpeg -rtsp_flags listen -i rtsp://127.0.0.1:PORT/x -c copy out.mp4`: the file holds
    /// every access unit, the keyframes where they were, and decodes to the fixture's pictures.
    @Test(.timeLimit(.minutes(5))) func ffmpegRecordsWhatWasSent() throws {
        let sent = RTPAccessUnit.accessUnits(annexB: Fixture.baselineCAVLC.bytes()[...],
                                             timing: .init(frameRate: (25, 1), overridesStreamTiming: true))
        let format = try H264FormatParameters(stream: sent.flatMap(\.nalUnits))
        let port = try { () throws -> Int in
            let probe = try TCPListener()
            defer { probe.close() }
            return probe.localAddress.port
        }()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rtsp-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.mp4").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: Support.which("ffmpeg") ?? "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-rtsp_flags", "listen", "-listen_timeout", "15",
                            "-i", "rtsp://127.0.0.1:\(port)/x", "-c", "copy", "-y", output]
        let errors = Pipe()
        ffmpeg.standardError = errors
        ffmpeg.standardOutput = FileHandle.nullDevice
        try ffmpeg.run()
        defer { if ffmpeg.isRunning { ffmpeg.terminate() } }

        let client = try RTSPClient(url: "rtsp://127.0.0.1:\(port)/x", options: .init(requestTimeout: .seconds(5)))
        // FFmpeg listens once it has started: connection refused until then (5 s at most).
        var announced = false
        for _ in 0..<50 where !announced {
            do {
                try client.announce(format)
                announced = true
            } catch {
                let notYet = error.code == .connectionRefused || error.code == .connectionClosed
                if !notYet { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        try #require(announced)
        try client.record()
        #expect(client.sessionID != nil)
        for au in sent { try client.send(au) }
        client.close()  // TEARDOWN: FFmpeg ends the file
        let end = Date().addingTimeInterval(20)
        while ffmpeg.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!ffmpeg.isRunning)
        let stderr = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        #expect(ffmpeg.terminationStatus == 0, "\(stderr)")

        let packets = try FFmpeg.packets(output).packets
        #expect(packets.count == sent.count)
        #expect(packets.map(\.key) == sent.map { $0.nalUnits.contains { $0.type == .idrSlice } })
        let recorded = try FFmpeg.frameMD5s(file: output)
        let source = try FFmpeg.frameMD5s(file: Fixture.baselineCAVLC.url.path, inputFormat: "h264")
        #expect(!source.isEmpty)
        #expect(recorded == source)
    }
}
