import Foundation
import MP4
import Testing
import TestSupport

/// HLS packaging onto a disk that fills up (a small tmpfs mounted in a mount namespace of its
/// own, so nothing outside the test sees it): the command fails with the reason, the segment
/// being written is removed, and the playlist left lists only whole segments, ended, which FFmpeg
/// plays to its end without an error.
@Suite(.enabled(if: MountNamespace.canMountTmpfs && FFmpeg.isPresent,
                "needs the h264 executable, ffmpeg, and a tmpfs mounted in a mount namespace (root, unshare)"))
struct HLSFullDiskTests {
    @Test(arguments: ["fmp4", "ts"])
    func aFullDiskLeavesAPlaylistOfWholeSegments(_ format: String) throws {
        let suffix = format == "ts" ? ".ts" : ".m4s"
        let binary = try #require(CLIRobustnessTests.binary)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.h264"
        let made = try Support.run(binary, ["encode", "-o", input, "--size", "320x180", "--frames", "300", "--keyint", "30",
                                            "--preset", "ultrafast", "--threads", "1"], timeout: 120)
        #expect(made.status == 0, "\(made.stderr)")
        // The whole packaging, on an ordinary disk: its size sets the small disk's.
        let whole = try Support.run(binary, ["segment", input, "-o", dir + "/whole", "--duration", "1", "--format", format], timeout: 120)
        #expect(whole.status == 0, "\(whole.stderr)")
        let wholeBytes = try FileManager.default.contentsOfDirectory(atPath: dir + "/whole").reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: dir + "/whole/" + name)[.size] as? Int) ?? 0)
        }
        #expect(wholeBytes > 100_000, "\(wholeBytes) bytes")
        let size = (wholeBytes / 2 / 4096 + 1) * 4

        // The same onto a tmpfs of half that size, then copied out before the namespace goes.
        try FileManager.default.createDirectory(atPath: dir + "/mnt", withIntermediateDirectories: true)
        let script = """
            mount -t tmpfs -o size=\(size)k tmpfs "$1/mnt" || exit 99
            "$2" segment "$3" -o "$1/mnt/hls" --duration 1 --format \(format)
            status=$?
            cp -r "$1/mnt/hls" "$1/copy"
            exit $status
            """
        let r = try Support.run("/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", dir, binary, input], timeout: 120)
        #expect(r.status == 1 && !r.signalled, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains(String(cString: strerror(ENOSPC))), "\(r.stderr)")
        #expect(r.stderr.contains("was removed") && r.stderr.contains("whole segments, ended"), "\(r.stderr)")

        let playlist = try String(contentsOfFile: dir + "/copy/index.m3u8", encoding: .utf8)
        let listed = playlist.split(separator: "\n").filter { $0.hasSuffix(suffix) }.map(String.init)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: dir + "/copy").filter { $0.hasSuffix(suffix) }
        #expect(listed.count >= 2, "\(playlist)")
        #expect(Set(onDisk) == Set(listed), "no segment on disk that the playlist does not list, and none missing")
        #expect(playlist.contains("#EXT-X-ENDLIST"))
        // Every listed segment whole: the same bytes as the packaging on the ordinary disk.
        for name in listed {
            #expect(Support.readFile(dir + "/copy/" + name) == Support.readFile(dir + "/whole/" + name), "\(name)")
        }
        let decode = try FFmpeg.ffmpeg(["-v", "error", "-i", dir + "/copy/index.m3u8", "-f", "null", "-"], timeout: 120)
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }
}

/// A small disk for tests: a tmpfs mounted in a mount namespace of the test's own.
enum MountNamespace {
    /// Whether this process may mount a tmpfs in a mount namespace of its own.
    static let canMountTmpfs: Bool = {
        guard CLIRobustnessTests.binary != nil, getuid() == 0, Support.which("unshare") != nil,
              let dir = try? Support.temporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try? Support.run("/usr/bin/unshare", ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$1\"", "sh", dir],
                                 timeout: 10)
        return r?.status == 0
    }()
}
