import Testing
import FLV
import TestSupport
@testable import RTMP

/// The publishers' stored `publisher` properties, which issue 29 replaced with the
/// publishers' own `statistics`, `error`, `cancel()` and `isCancelled`, still build (with a
/// warning on the caller's side) and reach the same connection. Called through a protocol whose
/// requirements the deprecated properties witness, so that this file builds without warnings.
@Suite struct RTMPDeprecatedNamesTests {
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func videoPublisherReachedThroughIsItsConnection() throws {
        let server = try NginxServer()
        let video = try RTMPVideoPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/names", metadata: FLVMetadata())
        let reached = OldRTMPNames.connection(of: video)
        #expect(reached === video.connection)
        #expect(reached.statistics == video.statistics)
        #expect(!video.isCancelled && video.error == nil)
        reached.cancel()
        #expect(video.isCancelled)
    }

    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx with libnginx-mod-rtmp"))
    func asyncPublisherReachedThroughIsItsVideoPublisher() async throws {
        let server = try NginxServer()
        let rtmp = try await AsyncRTMPPublisher(url: "rtmp://127.0.0.1:\(server.port)/live/names", metadata: FLVMetadata())
        let reached = OldRTMPNames.videoPublisher(of: rtmp)
        #expect(reached === rtmp.base)
        #expect(!reached.isCancelled)
        rtmp.cancel()
        #expect(reached.isCancelled && rtmp.isCancelled)
        // The same counters (the sender thread may still add the bytes of its goodbye between
        // two reads, so the frame counts, which cancel froze, are compared).
        let (a, b) = (reached.statistics, rtmp.statistics)
        #expect(a.framesQueued == b.framesQueued && a.framesSent == b.framesSent && a.framesDropped == b.framesDropped)
    }
}

private protocol DeprecatedVideoPublisherNames { var publisher: RTMPPublisher { get } }
private protocol DeprecatedAsyncPublisherNames { var publisher: RTMPVideoPublisher { get } }
extension RTMPVideoPublisher: DeprecatedVideoPublisherNames {}
extension AsyncRTMPPublisher: DeprecatedAsyncPublisherNames {}

private enum OldRTMPNames {
    static func connection(of video: some DeprecatedVideoPublisherNames) -> RTMPPublisher { video.publisher }
    static func videoPublisher(of rtmp: some DeprecatedAsyncPublisherNames) -> RTMPVideoPublisher { rtmp.publisher }
}
