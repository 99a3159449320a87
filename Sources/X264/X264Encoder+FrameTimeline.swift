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

extension X264Encoder {
    /// The keyframe interval in seconds (``Options/maxKeyframeIntervalDuration``),
    /// measured on the frames' presentation times as VideoToolbox measures it: a frame is due
    /// to be a keyframe once its `pts` is the interval after the last keyframe's, less half the
    /// last frame step (timestamp jitter does not push a keyframe one frame late).
    ///
    /// Keyframes x264 makes itself (scene cuts, a frame limit) are known only when they come
    /// out, behind its lookahead: one that comes out later than a keyframe forced since then
    /// moves nothing, so the interval is never exceeded, only sometimes shortened.
    struct KeyframeClock {
        /// The interval in seconds; nil for none.
        let interval: Double?
        /// The presentation time of the latest keyframe known (forced, or out of x264).
        private(set) var lastKeyframe: Int64?
        private var lastPTS: Int64?
        private var lastStep: Int64 = 0

        init(interval: Double?) { self.interval = interval }

        /// Whether the frame at `pts` (on `timescale`, the stream's) must be a keyframe; the
        /// first frame is one (x264 starts with an IDR picture).
        mutating func isDue(_ pts: Int64, timescale: Int32) -> Bool {
            defer {
                if let lastPTS { lastStep = pts &- lastPTS }  // pts increase, checked by the timeline
                lastPTS = pts
            }
            guard let interval, let last = lastKeyframe else { return false }
            let elapsed = Double(pts &- last)  // pts increase, within Int64
            return elapsed >= interval * Double(timescale) - Double(lastStep) / 2
        }

        /// Records a keyframe at `pts`: one the encoder forces, or one out of x264.
        mutating func noteKeyframe(at pts: Int64) {
            lastKeyframe = Swift.max(lastKeyframe ?? pts, pts)
        }
    }
}
