import Foundation
import H264
import H264Fixtures
import MPEGTS
import TestSupport
import Testing

/// `TSRecorder`: a demuxed program recorded with its PIDs and other streams, read back to the
/// same access units and PES packets; a PES of a stream the PMT did not list is refused and
/// counted; parameter sets given out of band go in front of random access points.
@Suite struct TSRecorderTests {
    static let audio = TSElementaryStreamInfo(pid: 0x1C3, streamType: .aacADTS)
    static let program = TSProgramMap(programNumber: 7, pmtPID: 0x300, pcrPID: 0x1C2, version: 0,
                                      streams: [TSElementaryStreamInfo(pid: 0x1C2, streamType: .h264), audio])

    /// The events of a file, demuxed whole.
    static func events(_ path: String) -> [TSEvent] {
        var parser = TSParser()
        parser.append(Support.readFile(path)[...])
        parser.finish()
        var events: [TSEvent] = []
        while let e = parser.next() { events.append(e) }
        return events
    }

    struct Sample: AccessUnitSample {
        var nalUnits: [NALUnit]
        var flags: AccessUnitFlags
        var timestamps: SampleTimestamps?
    }

    static func units() -> [AccessUnit] {
        var timing = TimestampOptions(frameRate: (25, 1))
        timing.overridesStreamTiming = true
        let bytes = Fixture.mainCABACBFrames.bytes()
        return AccessUnits.assemble(annexB: bytes[...], timing: timing).accessUnits.filter { !$0.flags.hasNoPicture }
    }

    @Test func keepsTheSourcesProgramAndItsOtherStreams() throws {
        let path = try Support.temporaryDirectory() + "/rec.ts"
        let recorder = try TSRecorder(creatingAtPath: path)
        recorder.keepProgram(Self.program)
        let units = Self.units()
        for (i, au) in units.enumerated() {
            try recorder.write(au)
            let t = SampleTimestamps(pts: Int64(i) * 3600, dts: Int64(i) * 3600, timescale: 90_000)
            try recorder.write(TSElementaryStreamPacket(pid: 0x1C3, streamType: .aacADTS, payload: [0xFF, 0xF1, UInt8(i)], timestamps: t))
        }
        // A stream the recording's PMT does not list: refused, counted, and nothing written.
        let stray = TSElementaryStreamPacket(pid: 0x1C4, streamType: .aacADTS, payload: [1, 2, 3], timestamps: nil)
        for _ in 0..<2 {
            do throws(TSError) {
                try recorder.write(stray)
                Issue.record("a PES of a PID the PMT does not list was written")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
        try recorder.finish()
        #expect(recorder.refusedPacketCount == 2)
        #expect(recorder.accessUnitCount == units.count && recorder.elementaryStreamPacketCount == units.count)
        #expect(recorder.byteCount == Support.readFile(path).count && recorder.byteCount % 188 == 0)

        let events = Self.events(path)
        let maps = events.compactMap { if case .programMap(let m) = $0 { m } else { nil } }
        #expect(maps.first?.programNumber == 7 && maps.first?.pmtPID == 0x300)
        #expect(maps.first?.streams.map(\.pid) == [0x1C2, 0x1C3])
        let read = events.compactMap { if case .accessUnit(let au) = $0 { au } else { nil } }
        #expect(read.map(\.pid) == Array(repeating: 0x1C2, count: units.count))
        let strip: ([NALUnit]) -> [[UInt8]] = { $0.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) } }
        #expect(read.map { strip($0.nalUnits) } == units.map { strip($0.nalUnits) })
        let pes = events.compactMap { if case .elementaryStreamPacket(let p) = $0 { p } else { nil } }
        #expect(pes.map(\.payload) == (0..<units.count).map { [0xFF, 0xF1, UInt8($0)] })
        #expect(pes.allSatisfy { $0.pid == 0x1C3 })
    }

    /// Parameter sets given out of band are written at each random access point without them.
    @Test func writesOutOfBandParameterSets() throws {
        let units = Self.units()
        let sets = units[0].nalUnits.filter { $0.type == .sps || $0.type == .pps }
        #expect(sets.count == 2)
        let stripped = units.map { au in
            Sample(nalUnits: au.nalUnits.filter { $0.type != .sps && $0.type != .pps }, flags: au.flags, timestamps: au.timestamps)
        }
        let path = try Support.temporaryDirectory() + "/sets.ts"
        let recorder = try TSRecorder(creatingAtPath: path, parameterSets: sets)
        for au in stripped { try recorder.write(au) }
        try recorder.finish()
        try recorder.finish()  // a second finish does nothing
        let read = Self.events(path).compactMap { if case .accessUnit(let au) = $0 { au } else { nil } }
        #expect(read.count == units.count)
        #expect(read.first?.nalUnits.contains { $0.type == .sps } == true)
        do throws(TSError) {
            try recorder.write(units[0])
            Issue.record("a finished recording took an access unit")
        } catch {
            #expect(error.code == .io)
        }
    }
}
