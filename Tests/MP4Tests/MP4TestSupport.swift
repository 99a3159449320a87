import Foundation
import H264
import H264Fixtures
import MP4
import TestSupport

/// Helpers shared by the MP4 tests: fixture conversion and ffprobe parsing.
enum MP4TestSupport {
    /// The Annex-B fixtures a muxer can take (not the AVCC ones, not the broken ones).
    static let annexBFixtures: [Fixture] = Fixture.allCases.filter {
        $0.facts.kind == .annexB && $0 != .missingPPS && $0 != .truncated
    }

    /// Converts an Annex-B stream to MP4 in memory through the library's converter.
    static func mp4(_ annexB: [UInt8], layout: MP4Writer.Options.Layout = .fastStart,
                    fps: (Int64, Int64)? = nil) throws -> (bytes: [UInt8], summary: MP4AnnexBConverter.Summary) {
        let file = MP4MemoryFile()
        var timing = TimestampAssigner.Configuration()
        if let fps { timing.frameRate = fps }
        var converter = MP4AnnexBConverter(timing: timing) { (timescale: Int64) throws(MP4Error) -> any MP4SampleWriting in
            try MP4Writer(file: file, options: .init(timescale: timescale, layout: layout))
        }
        try converter.append(annexB)
        let summary = try converter.finish()
        return (file.bytes, summary)
    }

    /// Writes bytes to a fresh temporary file and returns its path.
    static func temporaryFile(_ bytes: [UInt8], name: String = "out.mp4") throws -> String {
        let path = try Support.temporaryDirectory() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// One packet as ffprobe lists it.
    struct Packet: Equatable, CustomStringConvertible {
        var pts: Int64?
        var dts: Int64?
        var size: Int
        var key: Bool
        var description: String { "pts=\(pts.map(String.init) ?? "N/A") dts=\(dts.map(String.init) ?? "N/A") size=\(size) key=\(key)" }
    }

    /// `ffprobe -show_packets` of the first video stream, and its time base.
    static func probe(_ path: String) throws -> (packets: [Packet], timeBase: (Int64, Int64), errors: String) {
        let r = try Support.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "packet=pts,dts,size,flags:stream=time_base", "-of", "csv=p=0", path])
        var packets: [Packet] = []
        var timeBase: (Int64, Int64) = (1, 1)
        for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            if f.count == 1, f[0].contains("/") {
                let p = f[0].split(separator: "/")
                timeBase = (Int64(p[0]) ?? 1, Int64(p[1]) ?? 1)
                continue
            }
            guard f.count >= 4 else { continue }
            packets.append(Packet(pts: Int64(f[0]), dts: Int64(f[1]), size: Int(f[2]) ?? -1, key: f[3].hasPrefix("K")))
        }
        return (packets, timeBase, r.stderr)
    }
}
