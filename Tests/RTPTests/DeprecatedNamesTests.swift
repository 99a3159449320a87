import H264
import RTP
import Testing

/// RTP's settings types were `Configuration`, read back as `.configuration` (issue 29: one
/// word, `Options`). The old spellings still build, with a warning on the caller's side, and are
/// the new types and values. Called through a protocol whose requirements the deprecated
/// spellings witness, so that this file builds without warnings.
@Suite struct RTPDeprecatedNamesTests {
    @Test func configurationTypesAreTheOptions() {
        let old = OldNames.types(Spellings.self)
        #expect(old == [ObjectIdentifier(RTPPacketizer.Options.self), ObjectIdentifier(RTPDepacketizer.Options.self),
                        ObjectIdentifier(RTPReceiver.Options.self)])
    }

    @Test func configurationPropertiesReadTheOptions() throws {
        let packetizer = try RTPPacketizer(.webRTC(payloadType: 102, ssrc: 77, initialTimestamp: 9))
        let depacketizer = try RTPDepacketizer(.init(reorderWindow: 8, payloadType: 102))
        let receiver = try RTPReceiver(.init(idleTimeout: .seconds(3)))
        let read = OldNames.read(Spellings.self, packetizer, depacketizer, receiver)
        #expect(read.mtu == packetizer.options.mtu && read.mtu == 1200)
        #expect(read.payloadType == 102 && read.ssrc == 77)
        #expect(read.reorderWindow == depacketizer.options.reorderWindow && read.reorderWindow == 8)
        #expect(read.idleTimeout == .seconds(3))
    }
}

private struct Read: Equatable {
    var mtu: Int, payloadType: UInt8, ssrc: UInt32, reorderWindow: Int, idleTimeout: Duration
}

private protocol DeprecatedRTPNames {
    static var types: [ObjectIdentifier] { get }
    static func read(_ p: RTPPacketizer, _ d: RTPDepacketizer, _ r: RTPReceiver) -> Read
}

private enum Spellings: DeprecatedRTPNames {
    @available(*, deprecated)
    static var types: [ObjectIdentifier] {
        [ObjectIdentifier(RTPPacketizer.Configuration.self), ObjectIdentifier(RTPDepacketizer.Configuration.self),
         ObjectIdentifier(RTPReceiver.Configuration.self)]
    }

    @available(*, deprecated)
    static func read(_ p: RTPPacketizer, _ d: RTPDepacketizer, _ r: RTPReceiver) -> Read {
        Read(mtu: p.configuration.mtu, payloadType: p.configuration.payloadType, ssrc: p.configuration.ssrc,
             reorderWindow: d.configuration.reorderWindow, idleTimeout: r.configuration.idleTimeout)
    }
}

/// Calls the requirements through the protocol (no deprecated declaration named here).
private enum OldNames {
    static func types<S: DeprecatedRTPNames>(_: S.Type) -> [ObjectIdentifier] { S.types }
    static func read<S: DeprecatedRTPNames>(_: S.Type, _ p: RTPPacketizer, _ d: RTPDepacketizer, _ r: RTPReceiver) -> Read {
        S.read(p, d, r)
    }
}
