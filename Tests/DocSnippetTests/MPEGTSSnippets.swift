import H264
import H264Fixtures
import MPEGTS
import Testing

/// The snippets of the MPEGTS catalog (Sources/MPEGTS/MPEGTS.docc); each marked region is
/// shown, as it is, in an article (Docs/check-snippets.py checks it).
@Suite struct MPEGTSSnippets {
    @Test func roundTrip() throws {
        var timing = TimestampOptions(frameRate: (25, 1))
        timing.overridesStreamTiming = true
        let accessUnits = AccessUnits.assemble(annexB: Fixture.mainCABACBFrames.bytes()[...], timing: timing).accessUnits
        // snippet: ts-round-trip
        var writer = try TSWriter()
        for au in accessUnits { try writer.write(au) }     // times converted to 90 kHz
        let stream = writer.takeBytes()                     // 188-byte packets

        var parser = TSParser()
        var received: [TSAccessUnit] = []
        for start in stride(from: 0, to: stream.count, by: 1316) {   // any chunking
            parser.append(stream[start..<min(start + 1316, stream.count)])
            while let event = parser.next() {
                switch event {
                case .accessUnit(let au): received.append(au)          // an AccessUnitSample
                case .continuityError(let pid, _, _): print("packets lost on PID \(pid)")
                default: break
                }
            }
        }
        parser.finish()
        while let event = parser.next() { if case .accessUnit(let au) = event { received.append(au) } }
        // end snippet
        #expect(received.count == accessUnits.count)
        let offset = try #require(writer.timestampOffset)
        for (a, b) in zip(received, accessUnits) {
            #expect(a.timestamps?.dts == b.timestamps!.rescaled(to: 90_000).dts + offset)
            #expect(a.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) }
                    == b.nalUnits.filter { $0.type != .accessUnitDelimiter }.map { Array($0.bytes) })
        }
    }
}
