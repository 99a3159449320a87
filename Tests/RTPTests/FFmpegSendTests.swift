import Foundation
import Glibc
import H264
import RTP
import Testing
import TestSupport

/// A UDP socket bound to a loopback port, for receiving what FFmpeg sends.
final class UDPReceiver {
    let fd: Int32
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        var size: Int32 = 8 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw CocoaError(.fileWriteNoPermission)
        }
    }
    deinit { close(fd) }

    /// The next datagram, or nil after two seconds of silence.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n < 0 ? nil : Array(buffer[..<n])
    }
}

@Suite(.enabled(if: FFmpeg.isPresent && Corpus.isPresent, "needs ffmpeg and ../shared/corpus"))
struct FFmpegSendTests {
    /// FFmpeg's RTP muxer sends a corpus stream; the depacketiser's access units, written as
    /// Annex-B, decode to the same frames as the file. FFmpeg's SDP parses back.
    @Test(.timeLimit(.minutes(1)))
    func depacketizesWhatFFmpegSends() throws {
        let stream = Corpus.path("cros-codecs/test-25fps.h264")
        let port = Ports.freeEvenPort()
        let receiver = try UDPReceiver(port: port)
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
        while let datagram = receiver.receive() { try depacketizer.push(datagram[...], sink) }
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
