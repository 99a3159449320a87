import Foundation
import Glibc
import H264

/// GStreamer's RTSP server (gst-rtsp-server through Python's GObject bindings: Debian
/// `python3-gi`, `gir1.2-gst-rtsp-server-1.0`, `gstreamer1.0-rtsp`), started by a test on a
/// free loopback port, serving an H.264 file at its frame rate (`filesrc ! h264parse !
/// rtph264pay config-interval=-1`, an MP4 file so that the pictures have times) at `/test`, optionally behind a Basic or Digest user
/// (`user`, password `pa:ss`). Each client gets its own pipeline (not shared), so every session
/// starts at the file's first picture; at the end of the file the server sends RTCP BYE.
public final class GStreamerRTSPServer {
    public static let python = "/usr/bin/python3"
    /// Whether Python can load GstRtspServer and the elements are there; under CI, true.
    public static let isAvailable: Bool = {
        let present = FileManager.default.isExecutableFile(atPath: python)
            && ((try? Support.run(python, ["-c", "import gi; gi.require_version('GstRtspServer','1.0'); from gi.repository import GstRtspServer"],
                                  timeout: 20))?.succeeded ?? false)
            && Support.gstLaunch(with: ["h264parse", "rtph264pay"]) != nil
        return Tool.required("GStreamer's RTSP server for Python (python3-gi, gir1.2-gst-rtsp-server-1.0)", present: present)
    }()

    static let script = """
    import sys, gi
    gi.require_version('Gst', '1.0'); gi.require_version('GstRtspServer', '1.0'); gi.require_version('GstRtsp', '1.0')
    from gi.repository import Gst, GstRtspServer, GstRtsp, GLib
    Gst.init(None)
    path, auth, shared = sys.argv[1], sys.argv[2], sys.argv[3] == 'shared'
    server = GstRtspServer.RTSPServer()
    server.set_address('127.0.0.1')
    server.set_service('0')
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch('( filesrc location="%s" ! qtdemux ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=-1 )' % path)
    factory.set_shared(shared)
    if auth != 'none':
        a = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string('media.factory.role', 'user')
        if auth == 'basic':
            a.add_basic(GstRtspServer.RTSPAuth.make_basic('user', 'pa:ss'), token)
            a.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
        else:
            a.add_digest('user', 'pa:ss', token)
            a.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
        server.set_auth(a)
        permissions = GstRtspServer.RTSPPermissions()
        permissions.add_permission_for_role('user', 'media.factory.access', True)
        permissions.add_permission_for_role('user', 'media.factory.construct', True)
        factory.set_permissions(permissions)
    server.get_mount_points().add_factory('/test', factory)
    server.attach(None)
    print(server.get_bound_port(), flush=True)
    GLib.MainLoop().run()
    """

    public struct StartFailure: Error {}

    public let process: Process
    public let port: Int

    /// Starts the server for `file`, with `auth` `none`, `basic` or `digest`; `shared`: one
    /// pipeline for every client (they receive the same RTP stream, joining where it is).
    public init(file: String, auth: String = "none", shared: Bool = false) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-c", Self.script, file, auth, shared ? "shared" : "own"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The port is the first line; bounded wait (the process may fail to start).
        var line: [UInt8] = []
        let fd = out.fileHandleForReading.fileDescriptor
        let end = Date().addingTimeInterval(15)
        while !line.contains(UInt8(ascii: "\n")) && Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), port > 0 else {
            kill(process.processIdentifier, SIGKILL)
            Support.wait(process, timeout: 5)
            throw StartFailure()
        }
        self.port = port
    }

    public func url(_ userInfo: String = "") -> String { "rtsp://\(userInfo)127.0.0.1:\(port)/test" }

    /// Stops the server: SIGKILL, since a child of a test thread inherits its blocked SIGTERM
    /// (see `NginxServer`), and the server keeps nothing to flush.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        Support.wait(process, timeout: 5)
    }

    deinit { if process.isRunning { stop() } }
}

/// The H.264 stream the server sends: 45 frames of 320x240 at 30 fps, a keyframe every 30, no
/// B-frames, made once by FFmpeg's libx264 (``path``, Annex-B), and the same copied into MP4
/// (``mp4``), which the server reads.
public enum RTSPServedStream {
    public static let frames = 45
    public static let files: (h264: String, mp4: String)? = {
        guard FFmpeg.isPresent, let dir = try? Support.temporaryDirectory() else { return nil }
        let path = dir + "/served.h264", mp4 = dir + "/served.mp4"
        let r = try? FFmpeg.ffmpeg(["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                    "-frames:v", "\(frames)", "-c:v", "libx264", "-g", "30", "-bf", "0", "-pix_fmt", "yuv420p", path])
        let m = try? FFmpeg.ffmpeg(["-loglevel", "error", "-y", "-r", "30", "-i", path, "-c", "copy", mp4])
        return r?.succeeded == true && m?.succeeded == true ? (path, mp4) : nil
    }()
    public static var path: String? { files?.h264 }
    /// 150 frames (5 s) in MP4: long enough for the server's first RTCP sender reports.
    public static let longMP4: String? = {
        guard FFmpeg.isPresent, let dir = try? Support.temporaryDirectory() else { return nil }
        let mp4 = dir + "/long.mp4"
        let r = try? FFmpeg.ffmpeg(["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30",
                                    "-frames:v", "150", "-c:v", "libx264", "-g", "30", "-bf", "0", "-pix_fmt", "yuv420p", mp4])
        return r?.succeeded == true ? mp4 : nil
    }()
    public static var mp4: String? { files?.mp4 }

    /// The file's slice NAL units in order (the pictures as sent).
    public static func slices(of bytes: [UInt8]) throws -> [[UInt8]] {
        try AnnexB.split(bytes, leadingData: .skip).filter { $0.type == .slice || $0.type == .idrSlice }.map { Array($0.bytes) }
    }
}
