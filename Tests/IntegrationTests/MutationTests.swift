import FLV
import Foundation
import H264
import H264Fixtures
import RTP
import Testing
import TestSupport

/// Seeded mutations of every fixture (bit flips, byte changes, truncations, duplicated and
/// dropped NAL units, spliced streams) through every public entry point: each must return a
/// value or throw an `H264Error`, never trap. The fuzz bodies (FuzzBodies.swift) also check
/// streaming == batch and the writers' round trips on every mutated input; a broken property
/// is a recorded issue naming the fixture, the input and the mutation.
///
/// Every mutated input is split, parsed and traced (`annexb_parse`); the other entry points
/// take turns: input `i` of a fixture also goes through ``EntryPoints`` case `i % 5`, so each of
/// them sees 58 inputs of every fixture (2,030 in all) and every mutation kind. Set
/// `H264_MUTATION_SWEEP=full` for ``everyInputThroughEveryEntryPoint(_:)``: every input through
/// every entry point (about three times the CPU time).
@Suite struct MutationTests {
    /// Mutated inputs per fixture: the 35 fixtures give 10,150 inputs.
    static let mutationsPerFixture = 290

    /// The entry points after split, parse and trace, one per input in turn.
    enum EntryPoints: Int, CaseIterable {
        /// The writers' round trips (SPS, PPS, subset SPS, SEI, slice headers) and the header
        /// editor.
        case roundTrip
        /// Access units with POC and DTS, batch and streaming.
        case accessUnits
        /// Annex-B -> AVCC -> Annex-B, and the avcC record.
        case avcc
        /// Streaming == batch, in chunk sizes of 1...256 bytes.
        case streaming
        /// RTP packetisation and depacketisation (also of damaged packets), and FLV.
        case transport
    }

    /// Whether the full sweep runs (every input through every entry point).
    static let fullSweep = ProcessInfo.processInfo.environment["H264_MUTATION_SWEEP"] == "full"

    /// Each fixture's mutated inputs through split/parse/trace and one entry point in turn.
    @Test(arguments: Fixture.allCases)
    func mutatedFixture(_ fixture: Fixture) throws {
        let stats = try Self.run(fixture) { i in [EntryPoints.allCases[i % EntryPoints.allCases.count]] }
        Self.checkCoverage(stats, fixture: fixture, perEntryPoint: Self.mutationsPerFixture / EntryPoints.allCases.count)
    }

    /// Every mutated input through every entry point.
    @Test(.enabled(if: fullSweep, "the full sweep runs with H264_MUTATION_SWEEP=full"), arguments: Fixture.allCases)
    func everyInputThroughEveryEntryPoint(_ fixture: Fixture) throws {
        let stats = try Self.run(fixture) { _ in EntryPoints.allCases }
        Self.checkCoverage(stats, fixture: fixture, perEntryPoint: Self.mutationsPerFixture)
    }

    /// What one fixture's run did: inputs that differ from the fixture, mutation kinds applied,
    /// inputs per entry point.
    struct Stats {
        var changed = 0
        var kinds: Set<Int> = []
        var entryPoints: [EntryPoints: Int] = [:]
        var kindsPerEntryPoint: [EntryPoints: Set<Int>] = [:]
    }

    /// The mutator did its work: nearly every input differs from the fixture, every kind of
    /// mutation was applied, every entry point saw its share and every kind.
    static func checkCoverage(_ stats: Stats, fixture: Fixture, perEntryPoint: Int) {
        #expect(stats.changed * 10 >= mutationsPerFixture * 9, "\(fixture): \(stats.changed) changed inputs of \(mutationsPerFixture)")
        #expect(stats.kinds == mutationKinds, "\(fixture): mutation kinds \(stats.kinds.sorted())")
        for entryPoint in EntryPoints.allCases {
            #expect(stats.entryPoints[entryPoint, default: 0] >= perEntryPoint, "\(fixture): \(entryPoint)")
            #expect(stats.kindsPerEntryPoint[entryPoint] == mutationKinds, "\(fixture): kinds through \(entryPoint)")
        }
    }

    /// Mutates `fixture` ``mutationsPerFixture`` times and exercises each input through
    /// split/parse/trace and the entry points `entryPoints(i)` chooses.
    static func run(_ fixture: Fixture, entryPoints: (Int) -> [EntryPoints]) throws -> Stats {
        var rng = SplitMix64(seed: Self.fnv1a(fixture.rawValue))
        let bytes = fixture.bytes()
        let record = fixture.configurationRecord()
        let lengthSize = try record.map { try AVCDecoderConfigurationRecord(parsing: $0).nalUnitLengthSize } ?? .four
        // Annex-B fixtures are mutated as Annex-B, AVCC fixtures as AVCC (and their avcC record).
        let units = record == nil ? FuzzBodies.nalUnits(bytes[...]) : ((try? AVCC.split(bytes, lengthSize: lengthSize)) ?? [])
        let others = Fixture.allCases.filter { $0 != fixture && $0.configurationRecord() == nil }
        var stats = Stats()
        for i in 0..<Self.mutationsPerFixture {
            let donor = others[rng.below(others.count)].bytes()
            let (mutated, kind) = Self.mutate(bytes, units: units, donor: donor, avcc: record.map { _ in lengthSize }, rng: &rng)
            stats.kinds.insert(kind)
            if mutated != bytes { stats.changed += 1 }
            let chosen = entryPoints(i)
            for entryPoint in chosen {
                stats.entryPoints[entryPoint, default: 0] += 1
                stats.kindsPerEntryPoint[entryPoint, default: []].insert(kind)
            }
            let label = "\(fixture) input \(i) (mutation \(kind))"
            FuzzProperty.recordingViolations({ message in Issue.record("\(label): fuzz property violated: \(message)") }) {
                if let record {
                    var mutatedRecord = record
                    if rng.below(2) == 0 { Self.flipBits(&mutatedRecord, rng: &rng) }
                    if rng.below(4) == 0 { mutatedRecord.removeLast(rng.below(mutatedRecord.count + 1)) }
                    Self.exercise(avcc: mutated, record: mutatedRecord, lengthSize: lengthSize, entryPoints: chosen, rng: &rng)
                } else {
                    Self.exercise(annexB: mutated, entryPoints: chosen, rng: &rng)
                }
            }
        }
        return stats
    }

    // MARK: - Mutations

    /// The kinds of mutation ``mutate(_:units:donor:avcc:rng:)`` reports: bit flips (0),
    /// bytes set to start codes and runs (1), truncation (2), duplicated or dropped NAL units
    /// (3, drawn twice as often), splices (5), moved ranges (6).
    static let mutationKinds: Set<Int> = [0, 1, 2, 3, 5, 6]

    /// One mutated input, and the kind of mutation (one of ``mutationKinds``).
    static func mutate(_ bytes: [UInt8], units: [NALUnit], donor: [UInt8], avcc: AVCC.LengthSize?,
                       rng: inout SplitMix64) -> (bytes: [UInt8], kind: Int) {
        var out = bytes
        let draw = rng.below(7)
        let kind = draw == 4 ? 3 : draw
        switch draw {
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
        return (out, kind)
    }

    static func flipBits(_ bytes: inout [UInt8], rng: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        for _ in 0..<(1 + rng.below(8)) {
            bytes[rng.below(bytes.count)] ^= UInt8(1) << UInt8(rng.below(8))
        }
    }

    // MARK: - Entry points

    /// The entry points that take an Annex-B stream: split, parse and trace, then `entryPoints`.
    static func exercise(annexB stream: [UInt8], entryPoints: [EntryPoints], rng: inout SplitMix64) {
        // Split, parse every NAL unit through the store, SEI, slice headers, trace.
        FuzzBodies.annexBParse(stream)
        for entryPoint in entryPoints {
            switch entryPoint {
            case .roundTrip:
                FuzzBodies.roundTrip(stream)
            case .streaming:
                FuzzBodies.streaming([UInt8(rng.below(16)), UInt8(rng.below(256)), UInt8(rng.below(256))] + stream)
            case .accessUnits:
                FuzzBodies.accessUnits([UInt8(rng.below(256))] + stream)
            case .avcc:
                if let converted = try? FormatConversion.annexBToAVCC(stream[...], leadingData: .skip),
                   let record = try? converted.configuration.serialized() {
                    FuzzBodies.avcc([2, UInt8(record.count >> 8), UInt8(record.count & 0xFF)] + record + converted.bytes)
                }
            case .transport:
                let (accessUnits, _) = AccessUnits.assemble(annexB: stream[...], leadingData: .skip)
                rtp(accessUnits, rng: &rng)
                let configuration = try? FormatConversion.annexBToAVCC(stream[...], leadingData: .skip).configuration
                flv(accessUnits, configuration: configuration, rng: &rng)
            }
        }
    }

    /// The entry points that take AVCC and an avcC record, then the Annex-B ones on the
    /// conversion.
    static func exercise(avcc payload: [UInt8], record: [UInt8], lengthSize: AVCC.LengthSize, entryPoints: [EntryPoints],
                         rng: inout SplitMix64) {
        let choice: UInt8 = lengthSize == .one ? 0 : lengthSize == .two ? 1 : 2
        FuzzBodies.avcc([choice, UInt8(record.count >> 8), UInt8(record.count & 0xFF)] + record + payload)
        _ = try? AVCC.split(payload, lengthSize: lengthSize)
        if let config = try? AVCDecoderConfigurationRecord(parsing: record),
           let annexB = try? FormatConversion.avccToAnnexB(payload[...], configuration: config) {
            exercise(annexB: annexB, entryPoints: entryPoints, rng: &rng)
        }
    }

    static func rtp(_ accessUnits: [AccessUnit], rng: inout SplitMix64) {
        guard var packetizer = try? RTPPacketizer(.init(mtu: 300, ssrc: 7)),
              var depacketizer = try? RTPDepacketizer() else { return }
        var packets = RTPPacketBuffer()
        for (i, au) in accessUnits.enumerated() {
            try? packetizer.packetize(RTPAccessUnit(nalUnits: au.nalUnits, timestamp90kHz: Int64(i) * 3000), into: &packets)  // mode 1: never throws
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
