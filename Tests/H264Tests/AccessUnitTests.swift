import Foundation
import Testing
import TestSupport
import H264Fixtures
@testable import H264

/// Access-unit sizes as `h264 inspect` counts them: from the first byte of an access unit's
/// first start code to the first byte of the next access unit's.
func accessUnitSizes(_ units: [AccessUnit], in bytes: [UInt8]) -> [Int] {
    var starts: [Int] = []
    for (i, au) in units.enumerated() {
        guard i > 0, let first = au.nalUnits.first else { starts.append(0); continue }
        var start = first.bytes.startIndex - 3
        if start > 0 && bytes[start - 1] == 0 { start -= 1 }
        starts.append(start)
    }
    return starts.indices.map { (($0 + 1 < starts.count) ? starts[$0 + 1] : bytes.count) - starts[$0] }
}

@Suite struct AccessUnitFixtureTests {
    static let annexBFixtures = Fixture.allCases.filter { $0.facts.kind == .annexB && $0 != .leadingGarbage }

    @Test(arguments: annexBFixtures)
    func accessUnitsMatchTheManifest(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        let facts = fixture.facts
        #expect(accessUnitSizes(units, in: bytes) == facts.accessUnitSizes, "\(fixture)")
        #expect(units.filter(\.flags.isSync).count == facts.idrCount, "\(fixture)")
    }

    @Test(arguments: annexBFixtures)
    func timestampsAreOrdered(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        var lastDTS: Int64?
        for au in units where !au.flags.hasNoPicture {
            let dts = try #require(au.dts), pts = try #require(au.pts)
            #expect(pts >= dts, "\(fixture) AU \(au.index): PTS \(pts) < DTS \(dts)")
            if let lastDTS { #expect(dts > lastDTS, "\(fixture) AU \(au.index): DTS not increasing") }
            lastDTS = dts
        }
        // The delay is the smallest that works: some picture has PTS == DTS.
        #expect(units.contains { !$0.flags.hasNoPicture && $0.pts == $0.dts }, "\(fixture)")
    }

    @Test(arguments: annexBFixtures)
    func streamingGivesTheSameAccessUnitsForAnyChunking(_ fixture: Fixture) throws {
        let bytes = fixture.bytes()
        let (batch, _) = AccessUnits.assemble(annexB: bytes[...])
        for chunkSize in [1, 7, 188, 1500] {
            var parser = AccessUnitParser(timing: .init(reorderDepth: 16))
            var streamed: [AccessUnit] = []
            var i = 0
            while i < bytes.count {
                parser.append(Array(bytes[i..<min(i + chunkSize, bytes.count)]))
                while true {
                    do { guard let au = try parser.next() else { break }; streamed.append(au) } catch { continue }
                }
                i += chunkSize
            }
            parser.finish()
            while true {
                do { guard let au = try parser.next() else { break }; streamed.append(au) } catch { continue }
            }
            #expect(streamed.map { $0.nalUnits.map { Array($0.bytes) } } == batch.map { $0.nalUnits.map { Array($0.bytes) } },
                    "\(fixture) chunk \(chunkSize)")
            #expect(streamed.map(\.poc) == batch.map(\.poc))
            #expect(streamed.map(\.byteOffset) == batch.map(\.byteOffset), "\(fixture) chunk \(chunkSize)")
            // Same presentation order as the batch derivation.
            let order = { (u: [AccessUnit]) in u.filter { !$0.flags.hasNoPicture }.sorted { $0.pts! < $1.pts! }.map(\.index) }
            #expect(order(streamed) == order(batch), "\(fixture) chunk \(chunkSize)")
        }
    }

    /// An explicit reorder depth means the same in the batch API as in the streaming parser
    /// (the batch API used to ignore it and always take the smallest delay).
    @Test func batchHonoursAnExplicitReorderDepth() throws {
        let bytes = Fixture.mainCABACBFrames.bytes()
        var pts: [Int: [Int64?]] = [:]
        for depth in [2, 4] {
            let timing = TimestampOptions(reorderDepth: depth)
            let (batch, _) = AccessUnits.assemble(annexB: bytes[...], timing: timing)
            var parser = AccessUnitParser(timing: timing)
            parser.append(bytes)
            parser.finish()
            var streamed: [AccessUnit] = []
            while true {
                do { guard let au = try parser.next() else { break }; streamed.append(au) } catch { continue }
            }
            try #require(!batch.isEmpty)
            #expect(batch.map(\.pts) == streamed.map(\.pts), "depth \(depth)")
            #expect(batch.map(\.dts) == streamed.map(\.dts), "depth \(depth)")
            pts[depth] = batch.map(\.pts)
        }
        // A deeper reorder buffer presents later: the depth is not ignored.
        #expect(pts[2] != pts[4])
    }

    @Test func resolutionChangeIsOneFormatChange() throws {
        let bytes = Fixture.resolutionChange.bytes()
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        let changes = units.compactMap(\.formatChange)
        #expect(changes.count == 1)
        let config = try #require(changes.first?.decoderConfiguration)
        let sps = try #require(config.sequenceParameterSets.first)
        var store = ParameterSetStore()
        _ = try store.ingest(sps)
        let parsed = try #require(store.sps(id: 0))
        #expect(parsed.width == 96 && parsed.height == 64)
    }

    @Test func openGOPAndIntraRefreshAreRandomAccessPoints() throws {
        for fixture in [Fixture.openGOP, .intraRefresh] {
            let bytes = fixture.bytes()
            let (units, _) = AccessUnits.assemble(annexB: bytes[...])
            let rap = units.filter(\.flags.isRandomAccess)
            #expect(!rap.isEmpty, "\(fixture)")
            #expect(rap.allSatisfy { $0.flags.recoveryFrameCount != nil && !$0.flags.isSync })
        }
    }

    @Test func flagsOfABFrameStream() throws {
        let bytes = Fixture.mainCABACBFrames.bytes()
        let (units, _) = AccessUnits.assemble(annexB: bytes[...])
        let first = try #require(units.first)
        #expect(first.flags.isSync && !first.flags.dependsOnOthers && first.flags.hasParameterSets)
        let b = units.filter { $0.sliceTypes.contains(.b) }
        #expect(!b.isEmpty && b.allSatisfy { $0.flags.dependsOnOthers })
        #expect(units.contains { $0.flags.isDiscardable })
    }
}

@Suite struct AccessUnitLimitTests {
    /// A stream of slices that never completes an access unit: with no SPS every slice header
    /// is unparseable, and a slice whose first_mb_in_slice is not 0 joins the current one.
    static func endlessPicture(slices: Int, sliceBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<slices {
            out += [0, 0, 1, 0x41, 0x4A]  // non-IDR slice, first_mb_in_slice = 1 (ue "010"), no SPS
            out += [UInt8](repeating: 0x55, count: sliceBytes)
        }
        return out
    }

    @Test func tooManyNALUnitsIsATypedError() throws {
        let bytes = Self.endlessPicture(slices: 300, sliceBytes: 4)
        var assembler = AccessUnitAssembler(limits: .init(maxNALUnitsPerAccessUnit: 100))
        var splitter = AnnexB.Splitter(bytes[...])
        var failures: [H264Error] = []
        while let unit = try splitter.next() {
            do { _ = try assembler.push(unit) } catch { failures.append(error) }
        }
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.code == .limitExceeded })
    }

    @Test func tooManyBytesIsATypedError() throws {
        let bytes = Self.endlessPicture(slices: 50, sliceBytes: 1000)
        var assembler = AccessUnitAssembler(limits: .init(maxAccessUnitBytes: 10_000))
        var splitter = AnnexB.Splitter(bytes[...])
        var failures = 0
        while let unit = try splitter.next() {
            do { _ = try assembler.push(unit) } catch { #expect(error.code == .limitExceeded); failures += 1 }
        }
        #expect(failures >= 4)
    }

    @Test func defaultsAreGenerous() {
        let limits = AccessUnitLimits()
        #expect(limits.maxAccessUnitBytes >= 64 << 20)
        #expect(limits.maxNALUnitsPerAccessUnit >= 10_000)
    }

    /// Zero bytes between the NAL units of one access unit count toward its limit: views of a
    /// streaming parser's chunks would otherwise keep any amount of input for a few NAL units.
    @Test func anAccessUnitsSpanIsLimited() throws {
        let limits = AccessUnitLimits(maxAccessUnitBytes: 4096)
        var bytes: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x06, 5, 1, 0x80]  // AUD, SEI
        bytes += [UInt8](repeating: 0, count: 10_000)  // trailing zero bytes
        bytes += [0, 0, 1, 0x06, 5, 1, 0x80, 0, 0, 1, 0x41, 0x9A, 0x02]  // another SEI, a slice
        var parser = AccessUnitParser(limits: limits)
        parser.append(bytes[...])
        parser.finish()
        var errors: [H264Error.Code] = []
        var units = 0
        while true {
            do {
                guard let au = try parser.next() else { break }
                units += au.nalUnits.count
            } catch {
                errors.append(error.code)
            }
        }
        #expect(errors == [.limitExceeded])
        #expect(units == 1)  // the access unit is dropped with the SEI that passed the limit; the slice starts again
    }
}

@Suite(.enabled(if: Corpus.isPresent && FFmpeg.isPresent, "needs ../shared/corpus and ffprobe"))
struct AccessUnitCorpusTests {
    struct Packet: Decodable { let size: String; let flags: String }
    struct Packets: Decodable { let packets: [Packet] }
    struct Frame: Decodable { let pkt_pos: String? }
    struct Frames: Decodable { let frames: [Frame] }

    /// On every Annex-B stream of the corpus the access units equal the packets of
    /// `ffprobe -f h264 -show_packets`: count, size and key flag.
    @Test(arguments: Corpus.annexBStreams)
    func accessUnitsEqualFFprobePackets(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let (units, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
        let out = try FFmpeg.ffprobe(["-v", "error", "-f", "h264", "-show_packets", "-show_entries",
                                      "packet=size,flags", "-of", "json", Corpus.path(path)]).checked("ffprobe")
        let packets = try JSONDecoder().decode(Packets.self, from: Data(out.stdout)).packets
        #expect(accessUnitSizes(units, in: bytes) == packets.map { Int($0.size)! }, "\(path)")
        #expect(units.map(\.isRandomAccessPoint) == packets.map { $0.flags.contains("K") }, "\(path)")
    }

    /// Presentation order by POC equals FFmpeg's output order, on the streams with
    /// reordering, fields, MBAFF and memory management.
    @Test(arguments: ["fate-frext/HCAFF1_HHI.264", "fate-frext/HCAMFF1_HHI.264", "fate-frext/HPCAMAPALQ_BRCM_B.264",
                      "fate-frext/freh4.264", "fate-frext/Freh7_B.264", "fate-frext/FRExt4_Panasonic.avc",
                      "openh264/MR1_MW_A.264", "openh264/MR2_MW_A.264", "openh264/LS_SVA_D.264",
                      "cros-codecs/test-25fps.h264", "hibernia/CABA3_SVA_B.264"])
    func presentationOrderEqualsFFmpegOutputOrder(_ path: String) throws {
        let bytes = try Corpus.read(path)
        let (units, _) = AccessUnits.assemble(annexB: bytes[...], leadingData: .skip)
        let out = try FFmpeg.ffprobe(["-v", "error", "-f", "h264", "-show_frames", "-show_entries",
                                      "frame=pkt_pos", "-of", "json", Corpus.path(path)]).checked("ffprobe")
        let frames = try JSONDecoder().decode(Frames.self, from: Data(out.stdout)).frames.compactMap { $0.pkt_pos.flatMap(Int.init) }
        let starts = accessUnitSizes(units, in: bytes).reduce(into: [0]) { $0.append($0.last! + $1) }
        let ffSet = Set(frames)
        // FFmpeg outputs a field pair as one frame at its first field's packet.
        let ours = units.filter { !$0.flags.hasNoPicture }.sorted { $0.pts! < $1.pts! }.map { starts[$0.index] }.filter(ffSet.contains)
        #expect(frames.count > 1, "\(path): \(frames.count) frames from ffprobe")
        #expect(ours == frames, "\(path)")
    }
}
