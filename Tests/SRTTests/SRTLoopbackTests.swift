import Foundation
import H264
import H264Fixtures
import MPEGTS
import SRT
import TestSupport
import Testing

/// Our caller and our listener, on the loopback.
@Suite struct SRTLoopbackTests {
    /// A fixture's transport stream goes from our caller to our listener with its stream id and
    /// passphrase (AES-192), and reads back to the same access units.
    @Test(arguments: [nil, "correct horse battery"] as [String?])
    func callerToListener(passphrase: String?) throws {
        let ts = try SRTTestSupport.fixtureTS(.mainCABACBFrames)
        let connection = SRTOptions(latency: .milliseconds(40), streamID: "live/cam1", passphrase: passphrase, keyLength: 24)
        let listener = try SRTListener(address: "127.0.0.1", port: 0, options: .init(connection: connection))
        let sender = Thread {
            guard let caller = try? SRTSocket.connect(to: "127.0.0.1", port: listener.localPort, options: connection) else { return }
            try? SRTTestSupport.send(ts, over: caller)
            try? caller.finish(timeout: .seconds(2))
        }
        sender.start()
        let accepted = try listener.accept(timeout: .seconds(5))
        #expect(accepted.streamID == "live/cam1")
        #expect(accepted.remoteHost == "127.0.0.1")
        let (received, closed) = try SRTTestSupport.receiveAll(accepted)
        #expect(closed)
        #expect(received.count == ts.count)
        #expect(received == ts, "the bytes differ")
        #expect(SRTTestSupport.units(received).units == SRTTestSupport.units(ts).units)
        #expect(listener.statistics.accepted == 1)
    }
}
