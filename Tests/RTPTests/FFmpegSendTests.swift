import Foundation
import H264
import RTP
import Testing
import TestSupport

@Suite(.enabled(if: FFmpeg.isPresent && Corpus.isPresent, "needs ffmpeg and ../shared/corpus"))
struct FFmpegSendTests {
    /// FFmpeg's RTP muxer sends a corpus stream; the depacketiser's access units, written as
    /// Annex-B, decode to the same frames as the file. FFmpeg's SDP parses back.
    @Test(.timeLimit(.minutes(5)))
    func depacketizesWhatFFmpegSends() throws {
        let stream = Corpus.path("cros-codecs/test-25fps.h264")
        let receiver = try UDPSocket(receivingOn: 0, address: "127.0.0.1")
        let port = receiver.localPort
        let sdpPipe = Pipe()
        let sender = try Support.start("ffmpeg", ["-nostdin", "-loglevel", "error", "-readrate", "8", "-i", stream, "-c", "copy",
                                                  "-f", "rtp", "rtp://127.0.0.1:\(port)"], stdout: sdpPipe)

        var depacketizer = try RTPDepacketizer(.init(payloadType: 96))
        var annexB: [UInt8] = []
        var accessUnits = 0
        let sink = { (au: RTPReceivedAccessUnit) in
            accessUnits += 1
            for unit in au.nalUnits { AnnexB.append(unit, to: &annexB) }
        }
        var datagram: [UInt8] = []
        while let n = try receiver.receive(into: &datagram, timeout: .seconds(2)) { try depacketizer.push(datagram[..<n], sink) }
        depacketizer.flush(sink)
        #expect(!Support.wait(sender, timeout: 10), "ffmpeg did not end")
        #expect(depacketizer.report.packetsLost == 0 && depacketizer.report.nalUnitsDropped == 0)
        #expect(accessUnits == 250)

        let sdpText = String(decoding: sdpPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let sdp = try RTPSessionDescription(parsing: sdpText)
        #expect(sdp.port == port && sdp.payloadType == 96 && sdp.format.packetizationMode == 1)
        let units = try AnnexB.split(try Corpus.read("cros-codecs/test-25fps.h264"))
        let firstSets = [units.first { $0.type == .sps }, units.first { $0.type == .pps }].compactMap { $0 }
        #expect(sdp.format == (try H264FormatParameters(parameterSets: firstSets)))

        let dir = FileManager.default.temporaryDirectory
        let received = dir.appendingPathComponent("rtp-ffmpeg-send-\(UUID().uuidString).h264")
        try Data(annexB).write(to: received)
        defer { try? FileManager.default.removeItem(at: received) }
        let reference = try FFmpeg.frameMD5s(file: stream)
        let got = try FFmpeg.frameMD5s(file: received.path)
        #expect(reference.count == 250)
        #expect(got == reference)
    }
}
