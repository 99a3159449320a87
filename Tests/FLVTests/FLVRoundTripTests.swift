import Testing
import H264
@testable import FLV

/// Write -> read round trips and the writer's and reader's typed errors, on synthetic data.
@Suite struct FLVRoundTripTests {
    // A tiny fake SPS/PPS pair: the FLV layer never decodes them.
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB]
    static func avcC(_ sps: [UInt8]) -> [UInt8] {
        [1, sps[1], sps[2], sps[3], 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, UInt8(pps.count)] + pps
    }
    static func au(_ nals: [[UInt8]]) -> [UInt8] {
        nals.flatMap { [0, 0, 0, UInt8($0.count)] + $0 }
    }

    /// I P B B P ... with composition times, a format change half way, an end of sequence.
    static func samples() -> [FLVVideoSample] {
        let ptsOrder: [Int64] = [0, 3, 1, 2, 6, 4, 5, 7]
        return ptsOrder.enumerated().map { i, p in
            let key = i == 0 || i == 4
            let nal: [UInt8] = key ? [0x65, 0x88, UInt8(i)] : [0x41, 0x9A, UInt8(i)]
            return FLVVideoSample(dts: Int64(i) * 40, pts: p * 40 + 80, isKeyframe: key, data: au([nal]))
        }
    }

    static func writeFile() throws -> [UInt8] {
        var w = FLVWriter()
        try w.writeMetadata(FLVMetadata(width: 320, height: 240, frameRate: 25, duration: 0.32))
        let s = samples()
        for (i, sample) in s.enumerated() {
            let config = i < 4 ? avcC(sps) : avcC(sps + [0x42])
            try w.writeDecoderConfiguration(config, timestamp: sample.dts)
            try w.writeSample(sample)
        }
        try w.writeEndOfSequence()
        return w.takeBytes()
    }

    @Test func roundTrip() throws {
        let file = try Self.writeFile()
        let track = try FLVVideoTrack(reading: file)
        #expect(track.metadata == FLVMetadata(width: 320, height: 240, frameRate: 25, duration: 0.32))
        #expect(track.segments.count == 2)
        #expect(Array(track.segments[0].decoderConfiguration) == Self.avcC(Self.sps))
        #expect(Array(track.segments[1].decoderConfiguration) == Self.avcC(Self.sps + [0x42]))
        #expect(track.samples == Self.samples())
        #expect(track.samples.map(\.compositionTime) == [80, 160, 40, 40, 160, 40, 40, 80])
        #expect(track.hasEndOfSequence)
    }

    @Test func tagBytes() throws {
        var w = FLVWriter()
        #expect(w.takeBytes() == [0x46, 0x4C, 0x56, 1, 1, 0, 0, 0, 9, 0, 0, 0, 0])
        try w.writeDecoderConfiguration(Self.avcC(Self.sps), timestamp: 0)
        _ = w.takeBytes()
        try w.writeSample(FLVVideoSample(dts: 0x0123_4567, pts: 0x0123_4567 - 2, isKeyframe: false, data: [0, 0, 0, 1, 0x41]))
        let tag = w.takeBytes()
        // TagType 9, DataSize 10, Timestamp 0x234567, TimestampExtended 0x01, StreamID 0.
        #expect(Array(tag.prefix(11)) == [9, 0, 0, 10, 0x23, 0x45, 0x67, 0x01, 0, 0, 0])
        // inter frame + AVC, NALU, CompositionTime -2 as SI24, the sample.
        #expect(Array(tag[11..<21]) == [0x27, 1, 0xFF, 0xFF, 0xFE, 0, 0, 0, 1, 0x41])
        #expect(Array(tag.suffix(4)) == [0, 0, 0, 21])
        // The same avcC again writes no second sequence header.
        try w.writeDecoderConfiguration(Self.avcC(Self.sps), timestamp: 0)
        #expect(w.bytes.isEmpty)
    }

    @Test func writerErrors() throws {
        var w = FLVWriter()
        let s = FLVVideoSample(dts: 0, pts: 0, isKeyframe: true, data: [0, 0, 0, 1, 0x65])
        #expect(throws: FLVError(.missingDecoderConfiguration, "")) { try w.writeSample(s) }
        #expect(throws: FLVError(.invalidDecoderConfiguration, "")) { try w.writeDecoderConfiguration([0, 0, 0, 1] + Self.sps, timestamp: 0) }
        try w.writeDecoderConfiguration(Self.avcC(Self.sps), timestamp: 0)
        #expect(throws: FLVError(.invalidArgument, "")) { try w.writeSample(FLVVideoSample(dts: 0, pts: 1 << 24, isKeyframe: true, data: s.data)) }
        #expect(throws: FLVError(.invalidArgument, "")) { try w.writeSample(FLVVideoSample(dts: -1, pts: 0, isKeyframe: true, data: s.data)) }
        try w.writeSample(FLVVideoSample(dts: 40, pts: 40, isKeyframe: true, data: s.data))
        #expect(throws: FLVError(.invalidArgument, "")) { try w.writeSample(FLVVideoSample(dts: 39, pts: 40, isKeyframe: false, data: s.data)) }
    }

    @Test func everyPrefixIsSafe() throws {
        let file = try Self.writeFile()
        for n in 0..<file.count {
            do {
                let track = try FLVVideoTrack(reading: file[..<n])
                // A prefix that ends exactly between tags reads fewer samples.
                #expect(track.samples.count <= Self.samples().count)
            } catch {
                #expect(error.code == .truncated)
            }
        }
    }

    @Test func malformedFiles() throws {
        let file = try Self.writeFile()
        var bad = file
        bad[0] = 0x47
        #expect(throws: FLVError(.invalidContainer, "")) { try FLVVideoTrack(reading: bad) }
        bad = file
        bad[bad.count - 1] ^= 1  // the last PreviousTagSize
        #expect(throws: FLVError(.invalidContainer, "")) { try FLVVideoTrack(reading: bad) }
        #expect(try FLVVideoTrack(reading: bad, options: .init(checkPreviousTagSize: false)).samples.count == 8)
        // A cap on tag sizes: the first tag (metadata) is larger than 16 bytes.
        #expect(throws: FLVError(.limitExceeded, "")) { try FLVVideoTrack(reading: file, options: .init(maximumTagSize: 16)) }
        // A sequence header holding Annex-B bytes.
        var w = FLVWriter()
        try w.writeTag(FLVTag(type: .video, timestamp: 0, body: FLVVideoPacket.sequenceHeader(([0, 0, 0, 1] + Self.sps)[...]).bytes[...]))
        #expect(throws: FLVError(.invalidDecoderConfiguration, "")) { try FLVVideoTrack(reading: w.bytes) }
        // A sample with a length past its end.
        w = FLVWriter()
        try w.writeDecoderConfiguration(Self.avcC(Self.sps), timestamp: 0)
        try w.writeSample(FLVVideoSample(dts: 0, pts: 0, isKeyframe: true, data: [0, 0, 0, 9, 0x65]))
        let error = #expect(throws: FLVError(.h264, "")) { try FLVVideoTrack(reading: w.bytes).annexB() }
        #expect(error?.underlying(as: H264Error.self)?.code == .lengthPastEnd)
        // Another codec.
        w = FLVWriter()
        try w.writeTag(FLVTag(type: .video, timestamp: 0, body: [0x12, 0, 0, 0, 0]))
        #expect(throws: FLVError(.unsupported, "")) { try FLVVideoTrack(reading: w.bytes) }
    }

    @Test func annexBInsertsParameterSets() throws {
        var w = FLVWriter()
        try w.writeDecoderConfiguration(Self.avcC(Self.sps), timestamp: 0)
        try w.writeSample(FLVVideoSample(dts: 0, pts: 0, isKeyframe: true, data: Self.au([[0x09, 0x10], [0x06, 5, 1, 0x80], [0x65, 0x88]])))
        try w.writeSample(FLVVideoSample(dts: 40, pts: 40, isKeyframe: false, data: Self.au([[0x41, 0x9A]])))
        let units = try AnnexB.split(try FLVVideoTrack(reading: w.bytes).annexB()).map { Array($0.bytes) }
        #expect(units == [[0x09, 0x10], Self.sps, Self.pps, [0x06, 5, 1, 0x80], [0x65, 0x88], [0x41, 0x9A]])
    }

    /// Every byte of a valid file flipped in turn: errors are typed, nothing traps.
    @Test func flippedBytesNeverTrap() throws {
        let file = try Self.writeFile()
        var read = 0, refused = 0
        for i in file.indices {
            for mask: UInt8 in [0xFF, 0x80, 0x01] {
                var bad = file
                bad[i] ^= mask
                do {
                    let track = try FLVVideoTrack(reading: bad, options: .init(checkPreviousTagSize: false))
                    read += 1
                    _ = try? track.annexB()
                } catch {
                    refused += 1
                }
            }
        }
        // Damage in a sample's bytes still reads; damage in the framing is refused.
        #expect(read > 0 && refused > 0, "\(read) read, \(refused) refused")
    }
}
