import CommandLineSupport
import FLV
import Foundation
import H264
import H264Fixtures
import MP4
import MPEGTS
import TestSupport
import Testing
@testable import H264CLI

/// `h264 convert` to and from `.ts`, `h264 inspect X.ts`, the output sink chosen by OUT's name,
/// and MediaInfo reading our transport streams.
@Suite struct TSConvertInspectTests {
    /// The H.264 access units of a transport stream file (our demuxer).
    static func accessUnits(_ path: String) -> [TSAccessUnit] {
        var parser = TSParser()
        parser.append(Support.readFile(path))
        parser.finish()
        var units: [TSAccessUnit] = []
        while let event = parser.next() { if case .accessUnit(let au) = event { units.append(au) } }
        return units
    }

    /// The picture NAL units of each access unit (delimiters left out).
    static func payloads(_ units: [TSAccessUnit]) -> [[[UInt8]]] {
        units.map { $0.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) } }
    }

    /// Removes the first packet of PID 256 that carries payload but starts no PES, after the
    /// `startsBefore`-th that starts one: a loss inside an access unit.
    static func dropVideoPacket(_ bytes: inout [UInt8], startsBefore: Int) throws {
        var starts = 0
        for i in stride(from: 0, to: bytes.count - 187, by: 188) where (Int(bytes[i + 1] & 0x1F) << 8 | Int(bytes[i + 2])) == 256
            && bytes[i + 3] & 0x10 != 0 {
            if bytes[i + 1] & 0x40 != 0 {
                starts += 1
            } else if starts >= startsBefore {
                bytes.removeSubrange(i..<(i + 188))
                return
            }
        }
        Issue.record("no video packet to drop")
    }

    /// Annex-B -> TS -> Annex-B, MP4, FLV and TS; MP4 -> TS and FLV -> TS: the same access
    /// units (NAL units byte for byte) every way, the same count, the keyframe first, and the
    /// times of the MP4 made from the TS in the TS's order (B-frames: PTS differs from DTS).
    @Test func convertsToAndFromTransportStreams() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = Fixture.mainCABACBFrames.bytes()
        let expected = TSTestSupportCLI.payloads(source)
        try #require(expected.count == 10)
        try Output.write(source, to: dir + "/in.264")
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/in.264", dir + "/a.ts"])
        let ts = Self.accessUnits(dir + "/a.ts")
        #expect(Self.payloads(ts) == expected)
        #expect(ts.first?.flags.isSync == true && ts.allSatisfy { $0.timestamps != nil && !$0.mayBeIncomplete })
        #expect(ts.contains { $0.timestamps!.pts != $0.timestamps!.dts })

        try StagedOutputTests.run(ConvertCommand.self, [dir + "/a.ts", dir + "/b.h264"])
        #expect(TSTestSupportCLI.payloads(Support.readFile(dir + "/b.h264")) == expected)

        try StagedOutputTests.run(ConvertCommand.self, [dir + "/a.ts", dir + "/b.mp4"])
        let reader = try MP4Reader(try MP4File(readingAtPath: dir + "/b.mp4"))
        let track = try #require(reader.videoTrack)
        let infos = try reader.sampleInfos(of: track)
        #expect(infos.count == 10 && infos.first?.flags.isSync == true)
        let scale = Int64(track.timescale)
        let tsOffsets = ts.map { ($0.timestamps!.pts - $0.timestamps!.dts) * scale / 90_000 }
        #expect(infos.map { $0.presentationTime - $0.decodeTime } == tsOffsets.map { $0 - tsOffsets[0] + (infos[0].presentationTime - infos[0].decodeTime) })

        try StagedOutputTests.run(ConvertCommand.self, [dir + "/a.ts", dir + "/b.flv"])
        var flv = try FLVReader(Support.readFile(dir + "/b.flv"))
        var flvSamples = 0
        while let event = try flv.nextVideoEvent() { if case .sample = event { flvSamples += 1 } }
        #expect(flvSamples == 10)

        try StagedOutputTests.run(ConvertCommand.self, [dir + "/b.mp4", dir + "/c.ts"])
        #expect(Self.payloads(Self.accessUnits(dir + "/c.ts")) == expected)
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/b.flv", dir + "/d.ts"])
        #expect(Self.payloads(Self.accessUnits(dir + "/d.ts")) == expected)
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/a.ts", dir + "/e.m2ts"])
        #expect(Self.payloads(Self.accessUnits(dir + "/e.m2ts")) == expected)
        #expect(StagedOutputTests.files(in: dir).allSatisfy { !$0.contains(".partial-") })
    }

    /// A damaged transport stream (garbage before it, one video packet dropped): the
    /// conversion ends (status 0), warns of the continuity error on stderr, and writes every
    /// access unit the loss left whole.
    @Test func damagedTransportStreamConvertsWhatIsWhole() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Output.write(Fixture.highBPyramid.bytes(), to: dir + "/in.264")
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/in.264", dir + "/a.ts"])
        let clean = Self.accessUnits(dir + "/a.ts")
        var bytes = Support.readFile(dir + "/a.ts")
        try Self.dropVideoPacket(&bytes, startsBefore: 4)
        try Output.write(Array("not a packet".utf8) + bytes, to: dir + "/damaged.ts")
        let notes = try StagedOutputTests.run(ConvertCommand.self, [dir + "/damaged.ts", dir + "/out.h264"])
        #expect(notes.contains("1 continuity errors") && notes.contains("12 bytes skipped"), "\(notes)")
        let got = TSTestSupportCLI.payloads(Support.readFile(dir + "/out.h264"))
        let whole = Self.payloads(clean)
        #expect(got.count >= whole.count - 2 && got.count <= whole.count)
        #expect(got.filter { whole.contains($0) }.count >= whole.count - 2)
    }

    /// A file named .ts that holds no transport stream: an error that says so, and no output
    /// left (the output is staged).
    @Test func notATransportStream() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Output.write([UInt8](repeating: 0x47, count: 100) + Array("garbage".utf8), to: dir + "/x.ts")
        #expect(throws: CLIError.self) { try StagedOutputTests.run(ConvertCommand.self, [dir + "/x.ts", dir + "/x.mp4"]) }
        #expect(throws: CLIError.self) { try StagedOutputTests.run(ConvertCommand.self, [dir + "/x.ts", dir + "/x.h264", "--to", "flv"]) }
        // A stream without a picture (an SPS and a PPS alone): an error, no empty TS.
        try Output.write(Array(ConvertCommandTests.stream.prefix(27)), to: dir + "/sets.264")
        #expect(throws: CLIError.self) { try StagedOutputTests.run(ConvertCommand.self, [dir + "/sets.264", dir + "/sets.ts"]) }
        #expect(StagedOutputTests.files(in: dir) == ["x.ts", "sets.264"])
    }

    /// OUT's name chooses the sink.
    @Test func outputFormatByName() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        typealias F = AccessUnitOutput.Format
        #expect(F(path: "a.h264") == .annexB && F(path: "-") == .annexB && F(path: "a.264") == .annexB)
        #expect(F(path: "a.mp4") == .mp4 && F(path: "a.flv") == .flv)
        #expect(F(path: "a.ts") == .transportStream && F(path: "a.m2ts") == .transportStream)
        #expect(F(path: "out/") == .hls(directory: "out", playlist: "index.m3u8"))
        #expect(F(path: dir) == .hls(directory: dir, playlist: "index.m3u8"))
        #expect(F(path: "/x/live.m3u8") == .hls(directory: "/x", playlist: "live.m3u8"))
        #expect(F(path: "live.m3u8") == .hls(directory: ".", playlist: "live.m3u8"))
    }

    /// `inspect --json` of our TS: the program map, one line per access unit, a summary with
    /// the PCR (on the video PID, at most 100 ms apart) and no continuity error; with a video
    /// packet dropped, a `continuity_error` line on PID 256 and the count in the summary.
    @Test(.enabled(if: Support.h264 != nil, "the h264 executable is not built"))
    func inspectsTransportStreams() throws {
        let h264 = try #require(Support.h264)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Output.write(Fixture.mainCABACBFrames.bytes(), to: dir + "/in.264")
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/in.264", dir + "/a.ts"])

        func lines(_ path: String) throws -> [[String: Any]] {
            let r = try Support.run(h264, ["inspect", path, "--json"]).checked("h264 inspect")
            return try r.output.split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }
        let clean = try lines(dir + "/a.ts")
        let program = try #require(clean.first?["program"] as? [String: Any])
        #expect(program["program_number"] as? Int == 1 && program["PCR_PID"] as? Int == 256)
        let streams = try #require(program["streams"] as? [[String: Any]])
        #expect(streams.count == 1 && streams[0]["elementary_PID"] as? Int == 256 && streams[0]["stream_type"] as? Int == 0x1B)
        let units = clean.filter { $0["index"] != nil }
        #expect(units.count == 10 && units[0]["keyframe"] as? Bool == true)
        let summary = try #require(clean.last?["summary"] as? [String: Any])
        #expect(summary["access_units"] as? Int == 10 && summary["continuity_errors"] as? Int == 0)
        let stream = try #require(summary["stream"] as? [String: Any])
        #expect(stream["profile_idc"] as? Int == 77 && stream["width"] as? Int == 96 && stream["gop_lengths"] as? [Int] == [10])
        #expect(summary["packets"] as? Int == Support.readFile(dir + "/a.ts").count / 188 && summary["packet_size"] as? Int == 188)
        let pcr = try #require((summary["PCR"] as? [[String: Any]])?.first)
        #expect(pcr["PCR_PID"] as? Int == 256 && (pcr["count"] as? Int ?? 0) >= 10)
        let largest = try #require(pcr["largest_interval_ms"] as? Double)
        #expect(largest > 0 && largest <= 100)

        var bytes = Support.readFile(dir + "/a.ts")
        try Self.dropVideoPacket(&bytes, startsBefore: 1)
        try Output.write(bytes, to: dir + "/lost.ts")
        let lost = try lines(dir + "/lost.ts")
        let error = try #require(lost.first { $0["continuity_error"] != nil }?["continuity_error"] as? [String: Any])
        #expect(error["PID"] as? Int == 256)
        let lostSummary = try #require(lost.last?["summary"] as? [String: Any])
        #expect(lostSummary["continuity_errors"] as? Int == 1 && (lostSummary["incomplete_access_units"] as? Int ?? 0) >= 1)

        // The text form names the same things.
        let text = try Support.run(h264, ["inspect", dir + "/a.ts"]).checked("h264 inspect").output
        #expect(text.contains("program_map_PID 4096") && text.contains("stream_type 0x1B (H.264)")
                && text.contains("PCR            PID 256: ") && text.contains("access units   10 (1 IDR, 1 random access points")
                && text.contains("profile        Main (profile_idc 77)"), "\(text)")
    }
}

/// MediaInfo (Debian `mediainfo`) reads our transport streams of streams with B-frames, field
/// pictures, MBAFF and 4:2:2 10-bit: MPEG-TS with one AVC stream, the file's size, the frame
/// count and rate, the scan type and sampling, and no error or truncation field.
@Suite struct MediaInfoTSTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: Fixture
        /// Copies of the stream one after the other: MediaInfo recognises a TS of about 20
        /// packets or more.
        var repeats = 1
        var frames: Int
        var frameRate: String
        var scanType: String
        var chroma = "4:2:0"
        var bitDepth = "8"
        var testDescription: String { fixture.rawValue }
    }

    static let isPresent = Tool.required("mediainfo")

    @Test(.enabled(if: isPresent, "mediainfo is not installed (apt-get install mediainfo)"), arguments: [
        Case(fixture: .mainCABACBFrames, frames: 10, frameRate: "25.000", scanType: "Progressive"),
        Case(fixture: .paffFields, frames: 4, frameRate: "50.000", scanType: "Interlaced"),
        Case(fixture: .mbaffTFF, frames: 6, frameRate: "25.000", scanType: "MBAFF"),
        Case(fixture: .high422_10, repeats: 4, frames: 12, frameRate: "25.000", scanType: "Progressive", chroma: "4:2:2", bitDepth: "10"),
    ])
    func readsOurTransportStream(_ c: Case) throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Output.write(Array([[UInt8]](repeating: c.fixture.bytes(), count: c.repeats).joined()), to: dir + "/in.264")
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/in.264", dir + "/out.ts"])
        let r = try Support.run("mediainfo", ["--Output=JSON", dir + "/out.ts"], timeout: 30).checked("mediainfo")
        let root = try #require(JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let tracks = try #require((root["media"] as? [String: Any])?["track"] as? [[String: Any]])
        let general = try #require(tracks.first { $0["@type"] as? String == "General" })
        let video = try #require(tracks.first { $0["@type"] as? String == "Video" }, "\(r.output)")
        #expect(general["Format"] as? String == "MPEG-TS")
        #expect(general["FileSize"] as? String == String(Support.readFile(dir + "/out.ts").count))
        #expect(general["VideoCount"] as? String == "1")
        #expect(video["Format"] as? String == "AVC" && video["CodecID"] as? String == "27")
        #expect(video["FrameCount"] as? String == String(c.frames))
        #expect(video["FrameRate"] as? String == c.frameRate)
        #expect(video["ScanType"] as? String == c.scanType)
        #expect(video["ChromaSubsampling"] as? String == c.chroma && video["BitDepth"] as? String == c.bitDepth)
        let flagged = tracks.flatMap { track in
            track.keys.filter { $0.localizedCaseInsensitiveContains("error") || $0.localizedCaseInsensitiveContains("truncat") }
        }
        #expect(flagged.isEmpty, "\(flagged): \(r.output)")
    }
}

/// `h264 convert - out.h264` with a transport stream on a pipe that stays open, then SIGINT:
/// it ends with status 0, and OUT holds the access units of the packets read (what our demuxer
/// makes of those bytes), under its name.
@Suite(.enabled(if: CLIRobustnessTests.binary != nil, "the h264 executable is not built"))
struct TSConvertInterruptionTests {
    @Test func convertFromAnOpenTransportStreamPipeFinishes() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try InterruptionTests.encodedStream(in: dir, frames: 120)
        try Output.write(stream, to: dir + "/source.264")
        try StagedOutputTests.run(ConvertCommand.self, [dir + "/source.264", dir + "/source.ts"])
        let ts = Support.readFile(dir + "/source.ts")
        let prefix = Array(ts.prefix(ts.count / 2 / 188 * 188 + 100))  // half, and part of a packet
        try Output.write(prefix, to: dir + "/prefix.ts")
        let expected = TSConvertInspectTests.payloads(TSConvertInspectTests.accessUnits(dir + "/prefix.ts"))
        try #require(expected.count > 10)

        let pipe = try InterruptionTests.pipe()
        defer { close(pipe.write) }
        let out = dir + "/out.h264"
        let child = try InterruptionTests.Child([InterruptionTests.binary, "convert", "-", out], stdin: pipe.read, in: dir)
        close(pipe.read)
        InterruptionTests.writeAll(prefix, to: pipe.write)
        try #require(InterruptionTests.waitUntil(seconds: 30) { InterruptionTests.unread(pipe.write) == 0 }, "the input was not read")
        kill(child.pid, SIGINT)
        let end = child.wait(seconds: 30)
        #expect(end?.status == 0, "ended \(String(describing: end)): \(child.stderr)")
        let got = TSTestSupportCLI.payloads(Support.readFile(out))
        let same = got == expected
        #expect(same, "\(got.count) access units written, \(expected.count) in the packets sent")
        #expect(InterruptionTests.partialFiles(in: dir).isEmpty)
    }
}
