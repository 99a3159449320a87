import H264

extension X264Encoder {
    /// The timestamps an encoder has accepted: every frame in the first frame's timescale,
    /// each `pts` later than the one before (VideoToolbox's rule).
    struct FrameTimeline {
        private(set) var firstTimescale: Int32?
        private(set) var lastPTS: Int64?

        /// The timescale of the stream (90 kHz before any frame).
        var timescale: Int32 { firstTimescale ?? 90_000 }

        /// Checks that `frame` may follow.
        /// - Throws: ``X264Error/Code/invalidTimestamp``.
        func check(_ frame: VideoFrame) throws(X264Error) {
            guard frame.timescale > 0 else {
                throw X264Error.invalid(.invalidTimestamp, "timescale \(frame.timescale) must be positive")
            }
            if let first = firstTimescale, frame.timescale != first {
                throw X264Error.invalid(.invalidTimestamp,
                    "frame timescale \(frame.timescale) differs from the stream's \(first); convert the pts instead")
            }
            if let last = lastPTS, frame.pts <= last {
                throw X264Error.invalid(.invalidTimestamp, "pts \(frame.pts) does not follow the previous frame's \(last)")
            }
        }

        /// Records `frame` as the latest accepted.
        mutating func admit(_ frame: VideoFrame) {
            firstTimescale = frame.timescale
            lastPTS = frame.pts
        }
    }
}
