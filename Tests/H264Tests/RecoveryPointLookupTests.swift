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
        #expect(RecoveryPointLookup.recoveryFrameCount(in: unit, context: EmptySyntaxContext()) == 0)
        let without = Self.sei([userData, (1, [0x12, 0x34])])
        #expect(!RecoveryPointLookup.mayHoldRecoveryPoint(without.payload))
        #expect(RecoveryPointLookup.recoveryFrameCount(in: without, context: EmptySyntaxContext()) == nil)
        // A size past the end: no recovery point (the parse fails too).
        let cut = try! NALUnit([0x06, 0x05, 0x40, 0x01, 0x80])
        #expect(!RecoveryPointLookup.mayHoldRecoveryPoint(cut.payload))
    }

    /// On the fixtures with recovery points (open GOP, intra refresh) and, when present, every
    /// Annex-B stream of the corpus.
    @Test func agreesWithTheParse() throws {
        var seiCount = 0
        var recoveryPoints = 0
        var streams = [("openGOP", Fixture.openGOP.bytes()), ("intraRefresh", Fixture.intraRefresh.bytes())]
        for path in Corpus.annexBStreams { streams.append((path, try Corpus.read(path))) }
        for (path, bytes) in streams {
            var splitter = AnnexB.Splitter(bytes[...], leadingData: .skip)
            while let unit = try? splitter.next() {
                guard unit.type == .sei else { continue }
                seiCount += 1
                let parsed = try? SEI.parse(unit, context: EmptySyntaxContext(), options: RecoveryPointLookup.options)
                let hasRecoveryPoint = parsed?.messages.contains { $0.payloadType == .recoveryPoint } ?? false
                if hasRecoveryPoint { recoveryPoints += 1 }
                if !RecoveryPointLookup.mayHoldRecoveryPoint(unit.payload) {
                    #expect(!hasRecoveryPoint, "\(path): an SEI with a recovery point was skipped")
                }
            }
        }
        #expect(seiCount > (Corpus.isPresent ? 100 : 1))
        #expect(recoveryPoints > 1)
    }
}
