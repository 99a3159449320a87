import FLV
import H264
import H264Fixtures
import RTP
import Testing
import TestSupport

/// Seeded mutations of every fixture (bit flips, byte changes, truncations, duplicated and
/// dropped NAL units, spliced streams) through every public entry point: each must return a
/// value or throw an `H264Error`, never trap. The fuzz bodies (FuzzBodies.swift) also check
/// streaming == batch and the writers' round trips on every mutated input.
@Suite struct MutationTests {
    /// Mutated inputs per fixture: the 35 fixtures give 10,150 inputs.
    static let mutationsPerFixture = 290

    /// The suite covers at least 10,000 mutated inputs, whatever the fixture count becomes.
    @Test func coversTenThousandInputs() {
        #expect(Fixture.allCases.count * Self.mutationsPerFixture >= 10_000)
    }

    @Test(arguments: Fixture.allCases)
    func mutatedFixture(_ fixture: Fixture) throws {
        var rng = SplitMix64(seed: Self.fnv1a(fixture.rawValue))
        let bytes = fixture.bytes()
        let record = fixture.configurationRecord()
        let lengthSize = try record.map { try AVCDecoderConfigurationRecord(parsing: $0).nalUnitLengthSize } ?? .four
        // Annex-B fixtures are mutated as Annex-B, AVCC fixtures as AVCC (and their avcC record).
        let units = record == nil ? FuzzBodies.nalUnits(bytes[...]) : ((try? AVCC.split(bytes, lengthSize: lengthSize)) ?? [])
        let others = Fixture.allCases.filter { $0 != fixture && $0.configurationRecord() == nil }
        var count = 0
        for _ in 0..<Self.mutationsPerFixture {
            let donor = others[rng.below(others.count)].bytes()
            let mutated = Self.mutate(bytes, units: units, donor: donor, avcc: record.map { _ in lengthSize }, rng: &rng)
            if let record {
                var mutatedRecord = record
                if rng.below(2) == 0 { Self.flipBits(&mutatedRecord, rng: &rng) }
                if rng.below(4) == 0 { mutatedRecord.removeLast(rng.below(mutatedRecord.count + 1)) }
                Self.exercise(avcc: mutated, record: mutatedRecord, lengthSize: lengthSize, rng: &rng)
            } else {
                Self.exercise(annexB: mutated, rng: &rng)
            }
            count += 1
        }
        #expect(count == Self.mutationsPerFixture)
    }

    // MARK: - Mutations

    static func mutate(_ bytes: [UInt8], units: [NALUnit], donor: [UInt8], avcc: AVCC.LengthSize?,
                       rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        switch rng.below(7) {
        case 0:  // bit flips
            flipBits(&out, rng: &rng)
        case 1:  // random bytes set to interesting values (start codes, 0xFF runs, zeros)
            let values: [[UInt8]] = [[0, 0, 1], [0, 0, 0, 1], [0xFF, 0xFF, 0xFF], [0, 0, 3], [0, 0], [0x80], [0xFF]]
            for _ in 0..<(1 + rng.below(4)) where !out.isEmpty {
                let v = values[rng.below(values.count)]
                let at = rng.below(out.count)
                for (k, b) in v.enumerated() where at + k < out.count { out[at + k] = b }
            }
        case 2:  // truncation
            out.removeLast(rng.below(out.count + 1))
        case 3, 4:  // duplicated or dropped NAL units, rewritten in the fixture's framing
            guard !units.isEmpty else { break }
            var list = units
            for _ in 0..<(1 + rng.below(3)) where !list.isEmpty {
                let i = rng.below(list.count)
                if rng.below(2) == 0 { list.insert(list[i], at: rng.below(list.count + 1)) } else { list.remove(at: i) }
            }
            if let avcc { out = (try? AVCC.write(list, lengthSize: avcc)) ?? [] } else { out = AnnexB.write(list) }
        case 5:  // spliced with another stream at random points
            let cut = rng.below(out.count + 1)
            let from = rng.below(donor.count + 1)
            out = Array(out[..<cut]) + donor[from...]
        default:  // a byte range moved elsewhere
            guard out.count > 2 else { break }
            let a = rng.below(out.count), n = 1 + rng.below(min(64, out.count - a))
            let chunk = Array(out[a..<(a + n)])
            out.insert(contentsOf: chunk, at: rng.below(out.count + 1))
        }
        if rng.below(3) == 0 { flipBits(&out, rng: &rng) }
        return out
    }

    static func flipBits(_ bytes: inout [UInt8], rng: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        for _ in 0..<(1 + rng.below(8)) {
            bytes[rng.below(bytes.count)] ^= UInt8(1) << UInt8(rng.below(8))
        }
    }

    // MARK: - Entry points

    /// Every entry point that takes an Annex-B stream, and what it leads to.
    static func exercise(annexB stream: [UInt8], rng: inout SplitMix64) {
        // Split, parse every NAL unit through the store, SEI, slice headers, trace.
        FuzzBodies.annexBParse(stream)
        // The writers' round trips (SPS, PPS, subset SPS, SEI, slice headers).
        FuzzBodies.roundTrip(stream)
        // Streaming == batch, in chunk sizes of 1...256 bytes.
        FuzzBodies.streaming([UInt8(rng.below(16)), UInt8(rng.below(256)), UInt8(rng.below(256))] + stream)
        // Access units with POC and DTS, batch and streaming.
        FuzzBodies.accessUnits([UInt8(rng.below(256))] + stream)
        // Annex-B -> AVCC -> Annex-B, and the avcC record.
        let converted = try? FormatConversion.annexBToAVCC(stream[...], leadingData: .skip)
        if let converted, let record = try? converted.configuration.serialized() {
            FuzzBodies.avcc([2, UInt8(record.count >> 8), UInt8(record.count & 0xFF)] + record + converted.bytes)
        }
        // RTP packetisation and depacketisation (also of damaged packets), and FLV.
        let (accessUnits, _) = AccessUnits.assemble(annexB: stream[...], leadingData: .skip)
        rtp(accessUnits, rng: &rng)
        flv(accessUnits, configuration: converted?.configuration, rng: &rng)
    }

    /// The entry points that take AVCC and an avcC record.
    static func exercise(avcc payload: [UInt8], record: [UInt8], lengthSize: AVCC.LengthSize, rng: inout SplitMix64) {
        let choice: UInt8 = lengthSize == .one ? 0 : lengthSize == .two ? 1 : 2
        FuzzBodies.avcc([choice, UInt8(record.count >> 8), UInt8(record.count & 0xFF)] + record + payload)
        _ = try? AVCC.split(payload, lengthSize: lengthSize)
        if let config = try? AVCDecoderConfigurationRecord(parsing: record),
           let annexB = try? FormatConversion.avccToAnnexB(payload[...], configuration: config) {
            exercise(annexB: annexB, rng: &rng)
        }
    }

    static func rtp(_ accessUnits: [AccessUnit], rng: inout SplitMix64) {
        guard var packetizer = try? RTPPacketizer(.init(mtu: 300, ssrc: 7)),
              var depacketizer = try? RTPDepacketizer() else { return }
        var packets = RTPPacketBuffer()
        for (i, au) in accessUnits.enumerated() {
            packetizer.packetize(RTPAccessUnit(nalUnits: au.nalUnits, timestamp90kHz: Int64(i) * 3000), into: &packets)
        }
        for i in 0..<packets.count {
            var packet = Array(packets[i])
            if rng.below(8) == 0 { flipBits(&packet, rng: &rng) }
            if rng.below(16) == 0 { packet.removeLast(rng.below(packet.count + 1)) }
            if rng.below(16) == 0 { continue }  // lost
            _ = try? depacketizer.push(packet[...]) { _ in }
        }
        depacketizer.flush { _ in }
        _ = depacketizer.takeEvents()
    }

    static func flv(_ accessUnits: [AccessUnit], configuration: AVCDecoderConfigurationRecord?, rng: inout SplitMix64) {
        var writer = FLVWriter()
        if let configuration {
            _ = try? writer.writeDecoderConfiguration(try configuration.serialized(), timestamp: 0)
        }
        for au in accessUnits {
            guard let data = try? AVCC.write(au.nalUnits) else { continue }
            let dts = au.dts ?? Int64(au.index), pts = au.pts ?? dts
            _ = try? writer.writeSample(FLVVideoSample(dts: dts, pts: pts, isKeyframe: au.flags.isSync, data: data))
        }
        var file = writer.takeBytes()
        if rng.below(2) == 0 { flipBits(&file, rng: &rng) }
        if rng.below(4) == 0 { file.removeLast(rng.below(file.count + 1)) }
        guard var reader = try? FLVReader(file) else { return }
        for _ in 0...(file.count / 11 + 1) {  // a tag takes at least 11 bytes
            guard let event = try? reader.nextVideoEvent() else { break }
            if case .sample(let sample) = event { _ = try? AVCC.split(sample.data) }
        }
    }

    /// FNV-1a of a string: a stable seed per fixture.
    static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}


extension SplitMix64 {
    /// A number in `0..<n` (0 when `n` is not positive).
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}
