import CommandLineSupport
import Foundation
import Testing
@testable import H264CLI
import H264
import RTP
import TestSupport

/// The small correctness items of issue 27: an option given twice says so; `edit --level`
/// takes the levels of Table A-1 only; `edit --timecode` refuses a frame field at or above the
/// frame rate (it used to write 24 for 99 at 25 fps); a crop that leaves no picture, asked for
/// or already in the SPS, is refused. The commands run in this process.
@Suite struct CLIArgumentTests {
    static let fixtures = CLIRobustnessTests.packageRoot.appendingPathComponent("Fixtures/Streams").path

    static func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return CLI.message(for: error) }
        return nil
    }

    @Test func optionsGivenTwiceAreReportedAsSuch() throws {
        var args = Arguments(["--level", "3", "--level", "4"])
        #expect(Self.message { _ = try args.option("--level") } == "--level is given twice")
        args = Arguments(["--fps=25", "--fps", "30"])
        #expect(Self.message { _ = try args.option("--fps") } == "--fps is given twice")
        args = Arguments(["--json", "IN", "--json"])
        let taken = args.flag("--json")
        #expect(taken)
        #expect(Self.message { _ = try args.positionals() } == "--json is given twice")
        args = Arguments(["IN", "--bogus"])
        #expect(Self.message { _ = try args.positionals() } == "unknown option '--bogus'")
        // Options that may be repeated.
        args = Arguments(["--remove-sei", "5", "IN", "--remove-sei=6", "--remove-sei", "user_data_unregistered"])
        #expect(try args.values("--remove-sei") == ["5", "6", "user_data_unregistered"])
        #expect(try args.positionals() == ["IN"])
        // Through a command.
        var edit = Arguments([Self.fixtures + "/aud.264", "/dev/null", "--sar", "1:1", "--sar", "4:3"])
        #expect(Self.message { try EditCommand.run(&edit) } == "--sar is given twice")
    }

    @Test func levelsAreThoseOfTableA1() throws {
        let accepted: [(String, UInt8, Bool)] = [("1", 10, false), ("1b", 9, true), ("9", 9, true), ("1.1", 11, false),
                                                 ("11", 11, false), ("3.1", 31, false), ("31", 31, false), ("4", 40, false),
                                                 ("4.0", 40, false), ("40", 40, false), ("6.2", 62, false)]
        for (text, idc, level1b) in accepted {
            let level = try EditCommand.level(text)
            #expect(level.levelIDC == idc && level.isLevel1b == level1b, "\(text)")
        }
        for text in ["99", "0", "7", "2.3", "63", "5.3", "1.4", "-3", "3.", "b", "1.1.1", "014"] {
            #expect(throws: CLIError.self, "\(text)") { try EditCommand.level(text) }
        }
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var args = Arguments([Self.fixtures + "/aud.264", dir + "/out.264", "--level", "99"])
        #expect(throws: CLIError.self) { try EditCommand.run(&args) }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.264"))
    }

    /// `aud.264` has VUI timing of 25 frames a second.
    @Test func timecodeFramesMustBeBelowTheFrameRate() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Self.fixtures + "/aud.264", out = dir + "/out.264"
        func edit(_ timecode: String) -> String? {
            var args = Arguments([input, out, "--timecode", timecode])
            return Self.message { try EditCommand.run(&args) }
        }
        #expect(edit("00:00:00:99@25")?.contains("frame 99") == true)
        #expect(edit("00:00:00:25@25")?.contains("frame 25") == true)
        #expect(edit("00:00:00:25")?.contains("the stream's frame rate 25") == true, "the rate comes from the VUI")
        #expect(edit("24:00:00:00")?.contains("out of range") == true)
        #expect(edit("00:00:60:00")?.contains("out of range") == true)
        #expect(!FileManager.default.fileExists(atPath: out), "a refused time code left an output")
        #expect(edit("23:59:59:24@25") == nil)
        #expect(edit("00:00:00:29@30") == nil, "a rate given after @ is the count's")
        #expect(edit("00:00:00:24") == nil)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// The SPS of `aud.264` with its cropping replaced by `bottom` crop units at the bottom.
    static func croppedStream(bottom: UInt32) throws -> [UInt8] {
        var out: [UInt8] = []
        for unit in try AnnexB.split(Support.readFile(fixtures + "/aud.264")) {
            guard unit.type == .sps else {
                AnnexB.append(unit, to: &out)
                continue
            }
            var sps = try SequenceParameterSet(rbsp: unit.rbsp)
            sps.frameCroppingFlag = true
            sps.frameCropBottomOffset = bottom
            let rbsp = try sps.rbsp()
            var bytes = [unit.bytes[unit.bytes.startIndex]]
            EmulationPrevention.appendEBSP(of: rbsp, to: &bytes)
            AnnexB.append(try NALUnit(bytes), to: &out)
        }
        return out
    }

    @Test func cropThatLeavesNoPictureIsRefused() throws {
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.264"
        func edit(_ input: String, _ options: [String]) -> String? {
            var args = Arguments([input, out] + options)
            return Self.message { try EditCommand.run(&args) }
        }
        // The 64x48 picture: a crop of its whole height, or more, leaves nothing.
        for crop in ["0,0,0,48", "0,0,24,24", "64,0,0,0", "0,0,0,4000"] {
            let message = edit(Self.fixtures + "/aud.264", ["--crop", crop])
            #expect(message?.contains("leaves no picture of the 64x48 coded picture") == true, "\(crop): \(message ?? "accepted")")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(edit(Self.fixtures + "/aud.264", ["--crop", "0,0,0,46"]) == nil)
        let sps = try #require(try AnnexB.split(Support.readFile(out)).first { $0.type == .sps })
        #expect(try SequenceParameterSet(rbsp: sps.rbsp).height == 2)

        // An SPS whose own crop (25 units of 2 rows: 50 > 48) leaves no picture is not re-written
        // as if it were valid; copied without edits, it stays byte for byte; --crop replaces it.
        let bad = dir + "/bad.264"
        try Output.write(try Self.croppedStream(bottom: 25), to: bad)
        let message = edit(bad, ["--sar", "1:1"])
        #expect(message?.contains("invalidArgument") == true && message?.contains("leaves no picture") == true, "\(message ?? "accepted")")
        #expect(edit(bad, []) == nil)
        #expect(Support.readFile(out) == Support.readFile(bad))
        #expect(edit(bad, ["--crop", "0,0,0,8"]) == nil)
        let fixed = try #require(try AnnexB.split(Support.readFile(out)).first { $0.type == .sps })
        #expect(try SequenceParameterSet(rbsp: fixed.rbsp).height == 40)
    }
}

/// `rtp-receive`'s report names each counter of the depacketiser's report once, under its own key.
@Suite struct RTPReceiveReportTests {
    @Test func lateAndDelayCountersHaveTheirOwnKeys() throws {
        var report = RTPLossReport()
        report.packetsReceived = 100
        report.lateOrDuplicate = 7
        report.latePackets = 3
        report.packetsLostToDelay = 5
        report.packetsLost = 9
        var lines: [String] = []
        RTPReceiveCommand.printReport(report, errors: 0, stop: .idle, json: true) { lines.append($0) }
        try #require(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["packets_late"] as? Int == 3)
        #expect(object["packets_lost_to_delay"] as? Int == 5)
        #expect(object["packets_late_or_duplicated"] as? Int == 7)
        #expect(object["packets_lost"] as? Int == 9)
        #expect(object["stopped"] as? String == "idle")
        lines = []
        RTPReceiveCommand.printReport(report, errors: 0, stop: .idle, json: false) { lines.append($0) }
        #expect(lines.contains("packets_late: 3") && lines.contains("packets_lost_to_delay: 5"))
    }

    @Test func reorderDelayIsBounded() {
        var args = Arguments(["-o", "/dev/null", "--port", "0", "--reorder-delay", "0"])
        #expect(CLIArgumentTests.message { try RTPReceiveCommand.run(&args) } == "--reorder-delay: 0 is outside 1...60000")
    }
}
