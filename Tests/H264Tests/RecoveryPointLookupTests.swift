import H264Fixtures
import Testing
@testable import H264
import TestSupport

/// The header walk that spares the SEI parse agrees with the parse: it answers "no recovery
/// point" only for SEI NAL units whose parse finds none.
@Suite struct RecoveryPointLookupTests {
    /// An SEI RBSP: messages of (type, payload), then the stop bit.
    static func sei(_ messages: [(Int, [UInt8])]) -> NALUnit {
        var rbsp: [UInt8] = []
        for (type, payload) in messages {
            var t = type
            while t >= 255 { rbsp.append(0xFF); t -= 255 }
            rbsp.append(UInt8(t))
            var s = payload.count
            while s >= 255 { rbsp.append(0xFF); s -= 255 }
            rbsp.append(UInt8(s))
            rbsp += payload
        }
        rbsp.append(0x80)
        return try! NALUnit([0x06] + EmulationPrevention.ebsp(from: rbsp))
    }

    @Test func findsTheRecoveryPointBehindOtherMessages() {
        // recovery_frame_cnt 0, exact_match_flag 1, broken_link_flag 0, changing_slice_group_idc 0
        // (1 1 0 00), then the payload alignment bits (1 00).
        let recovery: (Int, [UInt8]) = (6, [0b1100_0100])
        // A user-data payload full of zeros: emulation prevention inside it, 300 bytes (a
        // two-byte size), before the recovery point.
        let userData: (Int, [UInt8]) = (5, [UInt8](repeating: 0, count: 300))
        let unit = Self.sei([userData, recovery])
        #expect(unit.bytes.count > 300 + 50)  // emulation-prevention bytes were inserted
        #expect(RecoveryPointLookup.mayHoldRecoveryPoint(unit.payload))
        #expect(RecoveryPointLookup.recoveryFrameCount(in: unit) == 0)
        let without = Self.sei([userData, (1, [0x12, 0x34])])
        #expect(!RecoveryPointLookup.mayHoldRecoveryPoint(without.payload))
        #expect(RecoveryPointLookup.recoveryFrameCount(in: without) == nil)
        // A size past the end: no recovery point (the parse fails too).
        let cut = try! NALUnit([0x06, 0x05, 0x40, 0x01, 0x80])
        #expect(!RecoveryPointLookup.mayHoldRecoveryPoint(cut.payload))
    }

    /// What the SEI parse with the lookup's options says: the first recovery point's
    /// `recovery_frame_cnt`, nil when there is none or the parse fails.
    static func parsed(_ unit: NALUnit) -> Int? {
        guard let sei = try? SEI.parse(unit, context: EmptySyntaxContext(), options: RecoveryPointLookup.options) else { return nil }
        for message in sei.messages {
            if case .recoveryPoint(let point) = message.payload { return Int(point.recoveryFrameCount) }
        }
        return nil
    }

    /// On every SEI NAL unit of the Annex-B fixtures (open GOP and intra refresh have recovery
    /// points) and, when present, of the corpus: the header walk skips none with a recovery
    /// point, and the lookup gives what the parse gives.
    @Test func agreesWithTheParse() throws {
        var seiCount = 0
        var recoveryPoints = 0
        var streams = Fixture.allCases.filter { $0.facts.kind == .annexB }.map { ("\($0)", $0.bytes()) }
        for path in Corpus.annexBStreams { streams.append((path, try Corpus.read(path))) }
        for (path, bytes) in streams {
            var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
            while let unit = try? splitter.next() {
                guard unit.type == .sei else { continue }
                seiCount += 1
                let expected = Self.parsed(unit)
                if expected != nil { recoveryPoints += 1 }
                if !RecoveryPointLookup.mayHoldRecoveryPoint(unit.payload) {
                    #expect(expected == nil, "\(path): an SEI with a recovery point was skipped")
                }
                #expect(RecoveryPointLookup.recoveryFrameCount(in: unit) == expected, "\(path): SEI \(seiCount)")
            }
        }
        #expect(seiCount > (Corpus.isPresent ? 100 : 10))
        #expect(recoveryPoints > 1)
    }

    /// Hostile SEI NAL units: random messages around recovery points (sizes that lie, 0xFF
    /// runs, payload trailers with and without their 1 bit, zero runs that take
    /// emulation-prevention bytes, a stop byte or not, zeros after it), and random bytes. The
    /// lookup agrees with the parse on every one.
    @Test func sameCountAsTheParseOnHostileBytes() throws {
        var rng = SplitMix64(seed: 0x5E1_6D)
        var withRecoveryPoint = 0
        for round in 0..<30_000 {
            var rbsp: [UInt8] = []
            if round % 5 == 0 {
                // Random bytes, biased to the values that matter.
                let n = Int.random(in: 0...24, using: &rng)
                let values: [UInt8] = [0, 0, 0, 3, 6, 0x80, 0xFF, 0x40, 1]
                for _ in 0..<n { rbsp.append(Bool.random(using: &rng) ? values.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)) }
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let type = Int.random(in: 0...3, using: &rng) == 0 ? Int.random(in: 0...300, using: &rng) : 6
                    var payload: [UInt8] = []
                    if type == 6 {
                        // A recovery point: ue(v), 4 bits, then a trailer, in a random number of bytes.
                        var w = BitWriter()
                        w.writeUE(UInt32.random(in: 0...70_000, using: &rng))
                        w.writeBits(UInt64.random(in: 0...15, using: &rng), 4)
                        if Bool.random(using: &rng) { w.writeBits(1, 1) }
                        while w.bitCount % 8 != 0 { w.writeBits(0, 1) }
                        payload = w.bytes
                        if Int.random(in: 0...3, using: &rng) == 0 { payload += [UInt8](repeating: UInt8.random(in: 0...1, using: &rng), count: Int.random(in: 0...20, using: &rng)) }
                    } else {
                        payload = (0..<Int.random(in: 0...30, using: &rng)).map { _ in Bool.random(using: &rng) ? 0 : UInt8.random(in: 0...255, using: &rng) }
                    }
                    var t = type
                    while t >= 255 { rbsp.append(0xFF); t -= 255 }
                    rbsp.append(UInt8(t))
                    // The size, sometimes wrong.
                    var size = max(0, payload.count + (Int.random(in: 0...4, using: &rng) == 0 ? Int.random(in: -2...2, using: &rng) : 0))
                    while size >= 255 { rbsp.append(0xFF); size -= 255 }
                    rbsp.append(UInt8(size))
                    rbsp += payload
                }
                switch Int.random(in: 0...5, using: &rng) {
                case 0: break  // no stop byte
                case 1: rbsp += [0x80, 0, 0]
                case 2: rbsp.append(UInt8.random(in: 1...255, using: &rng))
                default: rbsp.append(0x80)
                }
                // A byte changed, or the end cut.
                if !rbsp.isEmpty && Int.random(in: 0...3, using: &rng) == 0 {
                    rbsp[Int.random(in: 0..<rbsp.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if !rbsp.isEmpty && Int.random(in: 0...5, using: &rng) == 0 { rbsp.removeLast(Int.random(in: 1...rbsp.count, using: &rng)) }
            }
            guard let unit = try? NALUnit([0x06] + EmulationPrevention.ebsp(from: rbsp)) else { continue }
            let expected = Self.parsed(unit)
            if expected != nil { withRecoveryPoint += 1 }
            #expect(RecoveryPointLookup.recoveryFrameCount(in: unit) == expected, "round \(round): \(rbsp)")
        }
        #expect(withRecoveryPoint > 1_000)
    }
}
