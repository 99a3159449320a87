import Foundation
import H264
import RTP
import Testing
import TestSupport

/// Streams made by x264 (through FFmpeg's libx264) for the real-sender tests: 50 frames of
/// 320x240 at 25 fps, one without B-frames (Constrained Baseline, one slice) and one with
/// (High, 3 B-frames, pyramid, 4 slices per picture), in a directory kept for the test run.
enum SenderStreams {
    static let directory: String? = try? Support.temporaryDirectory()

    static func make(_ name: String, _ options: [String]) -> String? {
        guard FFmpeg.isPresent, let directory else { return nil }
        let path = directory + "/" + name
        let r = try? FFmpeg.ffmpeg(["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
                                    "-frames:v", "50", "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"] + options + [path])
        return r?.succeeded == true ? path : nil
    }

    static let noBFrames = make("baseline.264", ["-profile:v", "baseline"])
    static let bFrames = make("bframes.264", ["-profile:v", "high", "-bf", "3", "-x264-params", "slices=4"])
    static let multiSliceNoB = make("slices.264", ["-profile:v", "main", "-bf", "0", "-x264-params", "slices=4"])
    /// Slices of at most 1,000 bytes (x264 `slice-max-size`), for packetization-mode 0.
    static let smallSlices = make("small-slices.264", ["-profile:v", "baseline", "-x264-params", "slice-max-size=1000"])

    static func path(_ name: String) throws -> String {
        switch name {
        case "baseline": try #require(noBFrames)
        case "bframes": try #require(bFrames)
        case "small-slices": try #require(smallSlices)
        default: try #require(multiSliceNoB)
        }
    }

    /// The frame MD5s FFmpeg decodes from each stream, computed once.
    nonisolated(unsafe) private static var references: [String: [Substring]] = [:]
    private static let lock = NSLock()
    static func reference(_ path: String) throws -> [Substring] {
        lock.lock()
        defer { lock.unlock() }
        if let r = references[path] { return r }
        let r = try FFmpeg.frameMD5s(file: path)
        references[path] = r
        return r
    }
}

/// Receives what a sender process sends to a loopback port with the library's receive loop,
/// writes Annex-B and compares FFmpeg's decode of it with FFmpeg's decode of the source.
struct RealSenderRun {
    var stream: String
    var depacketizer = RTPDepacketizer.Options(payloadType: 96)
    /// Compare the frames decoded from what was received with the source's.
    var frameExact = true

    /// - Parameter sender: the program and arguments, given the port.
    /// - Returns: the receiver's report.
    func run(_ sender: (Int) -> (String, [String])) throws -> RTPLossReport {
        let socket = try UDPSocket(receivingOn: 0, address: "127.0.0.1")
        var source = socket
        // Parameter sets before the first IDR picture come from the stream itself.
        var receiver = try RTPReceiver(.init(depacketizer: depacketizer, duration: .seconds(40),
                                             idleTimeout: .seconds(1), firstPacketTimeout: .seconds(20)))
        let (program, args) = sender(socket.localPort)
        let process = try Support.start(program, args)
        var annexB: [UInt8] = []
        _ = try receiver.run(from: &source) { au in for unit in au.nalUnits { AnnexB.append(unit, to: &annexB) } }
        #expect(!Support.wait(process, timeout: 10), "the sender did not end")
        #expect(process.terminationStatus == 0, "the sender failed")
        guard frameExact else { return receiver.report }
        #expect(receiver.errorCount == 0, "\(receiver.errors)")

        let output = try Support.temporaryFile(annexB, name: "received.264")
        defer { try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent) }
        let reference = try SenderStreams.reference(stream)
        #expect(reference.count == 50)
        #expect(try FFmpeg.frameMD5s(file: output) == reference)
        return receiver.report
    }
}

@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg (with libx264)"))
struct FFmpegSenderTests {
    /// FFmpeg's RTP muxer (`-f rtp`, paced with `-readrate`) at its default packet size and at
    /// a small one (FU-A on most slices), on streams with and without B-frames, one with four
    /// slices per picture: received frame-exact, nothing lost, one access unit per frame.
    @Test(.timeLimit(.minutes(5)), arguments: [("baseline", 1400), ("baseline", 300), ("bframes", 300), ("bframes", 1400),
                                               ("slices", 200)])
    func receivesFFmpeg(stream: String, packetSize: Int) throws {
        let path = try SenderStreams.path(stream)
        let sdp = try Support.temporaryDirectory() + "/ffmpeg.sdp"
        defer { try? FileManager.default.removeItem(atPath: (sdp as NSString).deletingLastPathComponent) }
        var port = 0
        let report = try RealSenderRun(stream: path).run { p in
            port = p
            return ("ffmpeg", ["-nostdin", "-loglevel", "error", "-readrate", "4", "-i", path, "-c", "copy", "-f", "rtp",
                               "-payload_type", "96", "-sdp_file", sdp, "rtp://127.0.0.1:\(p)?pkt_size=\(packetSize)"])
        }
        #expect(report.packetsLost == 0 && report.nalUnitsDropped == 0 && report.incompleteAccessUnits == 0)
        #expect(report.accessUnitsDelivered == 50 && report.toleratedViolations == 0)
        // FFmpeg's SDP parses, with its two sprop-parameter-sets, into a receiver configuration.
        let session = try RTPSessionDescription(parsing: String(decoding: Support.readFile(sdp), as: UTF8.self))
        #expect(session.port == port && session.payloadType == 96 && session.format.packetizationMode == 1)
        let configuration = try RTPReceiver.Options(session: session)
        #expect(configuration.parameterSets.map(\.type) == [.sps, .pps])
    }
}

@Suite(.enabled(if: FFmpeg.isPresent, "needs ffmpeg (with libx264)"))
struct FFmpegMode0Tests {
    /// FFmpeg in packetization-mode 0 (`-rtpflags h264_mode0`) sending a stream whose slices x264
    /// kept under 1,000 bytes: received in strict mode 0 frame-exact, every packet a single NAL
    /// unit packet.
    @Test(.timeLimit(.minutes(5)))
    func receivesFFmpegMode0() throws {
        let path = try SenderStreams.path("small-slices")
        let sdp = try Support.temporaryDirectory() + "/ffmpeg.sdp"
        defer { try? FileManager.default.removeItem(atPath: (sdp as NSString).deletingLastPathComponent) }
        let run = RealSenderRun(stream: path, depacketizer: .init(payloadType: 96, packetizationMode: 0))
        let report = try run.run { port in
            ("ffmpeg", ["-nostdin", "-loglevel", "error", "-readrate", "4", "-i", path, "-c", "copy", "-f", "rtp", "-payload_type", "96",
                        "-rtpflags", "h264_mode0", "-sdp_file", sdp, "rtp://127.0.0.1:\(port)?pkt_size=1200"])
        }
        #expect(report.packetsRejected == 0 && report.toleratedViolations == 0 && report.packetsLost == 0)
        let session = try RTPSessionDescription(parsing: String(decoding: Support.readFile(sdp), as: UTF8.self))
        #expect(session.format.packetizationMode == 0)
    }

    /// An SDP that says packetization-mode 0 while the sender fragments (FU-A) and aggregates
    /// (cameras do): lenient, received frame-exact with a tolerance reported per such packet;
    /// strict, those packets are rejected.
    @Test(.timeLimit(.minutes(5)), arguments: [true, false])
    func fragmentsUnderAMode0SDP(lenient: Bool) throws {
        let path = try SenderStreams.path("baseline")
        let run = RealSenderRun(stream: path, depacketizer: .init(payloadType: 96, packetizationMode: 0, lenient: lenient),
                                frameExact: lenient)
        let report = try run.run { port in
            ("ffmpeg", ["-nostdin", "-loglevel", "error", "-readrate", "4", "-i", path, "-c", "copy", "-f", "rtp", "-payload_type", "96",
                        "rtp://127.0.0.1:\(port)?pkt_size=300"])
        }
        if lenient {
            #expect(report.toleratedViolations > 100 && report.packetsRejected == 0 && report.nalUnitsDropped == 0)
        } else {
            #expect(report.packetsRejected > 100 && report.toleratedViolations == 0)
        }
    }
}

/// `gst-launch-1.0` with the elements of the sending pipeline.
let gstSender = Support.gstLaunch(with: ["h264parse", "rtph264pay", "identity", "udpsink"])

@Suite(.enabled(if: gstSender != nil && FFmpeg.isPresent,
                "needs GStreamer (gst-launch-1.0 with h264parse, rtph264pay, identity, udpsink) and ffmpeg (with libx264)"))
struct GStreamerSenderTests {
    /// GStreamer's `rtph264pay` (SPS and PPS before every IDR picture, `config-interval=-1`;
    /// paced by `identity sleep-time`), small and large MTU, aggregation off and on, streams
    /// with and without B-frames: received frame-exact.
    ///
    /// (Single-slice streams only: `config-interval=-1` puts SPS and PPS before every IDR
    /// slice, so a multi-slice IDR picture arrives cut into several pictures, whoever
    /// depacketises it: GStreamer's own `rtph264depay` gives 254 frames for 250.)
    @Test(.timeLimit(.minutes(5)), arguments: [("baseline", 300, "none"), ("baseline", 1400, "zero-latency"),
                                               ("baseline", 300, "zero-latency")])
    func receivesGStreamer(stream: String, mtu: Int, aggregation: String) throws {
        let gst = try #require(gstSender)
        let path = try SenderStreams.path(stream)
        let report = try RealSenderRun(stream: path).run { port in
            (gst, ["-q", "filesrc", "location=\(path)", "!", "h264parse", "!", "rtph264pay", "mtu=\(mtu)",
                   "aggregate-mode=\(aggregation)", "config-interval=-1", "pt=96", "!", "identity", "sleep-time=300", "!",
                   "udpsink", "host=127.0.0.1", "port=\(port)"])
        }
        #expect(report.packetsLost == 0 && report.nalUnitsDropped == 0 && report.incompleteAccessUnits == 0)
        #expect(report.accessUnitsDelivered >= 50)
    }

    /// The same with B-frames and four slices per picture, parameter sets only in the stream
    /// (`config-interval=0`): the slices of a picture are one access unit.
    @Test(.timeLimit(.minutes(5)), arguments: [(300, "none"), (1400, "zero-latency")])
    func receivesGStreamerBFrames(mtu: Int, aggregation: String) throws {
        let gst = try #require(gstSender)
        let path = try SenderStreams.path("bframes")
        let report = try RealSenderRun(stream: path).run { port in
            (gst, ["-q", "filesrc", "location=\(path)", "!", "h264parse", "!", "rtph264pay", "mtu=\(mtu)",
                   "aggregate-mode=\(aggregation)", "config-interval=0", "pt=96", "!", "identity", "sleep-time=300", "!",
                   "udpsink", "host=127.0.0.1", "port=\(port)"])
        }
        #expect(report.packetsLost == 0 && report.nalUnitsDropped == 0 && report.incompleteAccessUnits == 0)
        #expect(report.accessUnitsDelivered == 50)
    }
}
