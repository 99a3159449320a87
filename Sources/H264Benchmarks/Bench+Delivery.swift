import H264
import H264Delivery

/// Delivery measurements for the benchmark executable: the work of `h264 check` and
/// `h264 edit --for` over the stream.
enum DeliveryBench {
    /// `check_webrtc_gbps`: ``StreamChecker`` with the WebRTC profile, fed 1 MiB chunks (the
    /// access-unit layer plus the rules).
    /// - Returns: a number that depends on the result (access units plus violations).
    static func check(_ stream: ArraySlice<UInt8>) -> Int {
        var checker = StreamChecker(profile: .webRTC)
        var i = stream.startIndex
        while i < stream.endIndex {
            let end = Swift.min(i &+ (1 << 20), stream.endIndex)
            checker.append(stream[i..<end])
            i = end
        }
        checker.finish()
        return checker.accessUnitCount &+ checker.violations.count
    }

    /// `edit_for_hls_gbps` (with ``hlsPlan(_:)`` first: both passes of `h264 edit --for hls`):
    /// ``StreamFixer`` with the HLS plan: header editing, delimiters inserted and parameter sets
    /// repeated, in 1 MiB chunks.
    /// - Returns: the output's size.
    static func fix(_ stream: ArraySlice<UInt8>, plan: DeliveryFixPlan) throws -> Int {
        var fixer = StreamFixer(plan: plan)
        var out: [UInt8] = []
        var total = 0
        var i = stream.startIndex
        while i < stream.endIndex {
            let end = Swift.min(i &+ (1 << 20), stream.endIndex)
            try fixer.append(stream[i..<end], to: &out)
            total &+= out.count
            out.removeAll(keepingCapacity: true)
            i = end
        }
        try fixer.finish(to: &out)
        return total &+ out.count
    }

    /// The HLS plan for `stream` (a check over it).
    static func hlsPlan(_ stream: ArraySlice<UInt8>) -> DeliveryFixPlan {
        DeliveryProfile.hls.fixPlan(for: StreamChecker.check(annexB: stream, profile: .hls))
    }
}
