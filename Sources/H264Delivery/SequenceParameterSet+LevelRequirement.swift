import H264

extension SequenceParameterSet {
    /// The lowest level of Table A-1 whose limits this SPS's stream keeps (A.3.1): frame size
    /// within `MaxFS`, width and height within `Sqrt(8 * MaxFS)` macroblocks, macroblock rate
    /// within `MaxMBPS` when the VUI gives a fixed frame rate, `max_num_ref_frames` (and
    /// `max_dec_frame_buffering` when declared) within `MaxDpbFrames`. Level 1b is not chosen
    /// (it is written differently by profile). The bit rate is not known from the headers and
    /// not considered. Nil when no level holds the stream.
    public var minimumLevel: ProfileLevel.Level? {
        ProfileLevel.Level.all.first { !$0.isLevel1b && levelViolations(of: $0).isEmpty }
    }

    /// The limits of `level` this SPS breaks, one line each; empty when it keeps them (and for
    /// a level Table A-1 does not list: one line saying so).
    public func levelViolations(of level: ProfileLevel.Level) -> [String] {
        guard let limits = level.limits else { return ["level_idc \(level.levelIDC) is not in Table A-1"] }
        var problems: [String] = []
        let widthMbs = picWidthInMbs, heightMbs = frameHeightInMbs  // each at most a few thousand
        let frameMbs = widthMbs &* heightMbs
        if frameMbs > limits.maxFrameSize {
            problems.append("\(frameMbs) macroblocks per frame exceed MaxFS \(limits.maxFrameSize) of level \(level)")
        }
        if widthMbs &* widthMbs > 8 &* limits.maxFrameSize || heightMbs &* heightMbs > 8 &* limits.maxFrameSize {
            problems.append("\(widthMbs)x\(heightMbs) macroblocks exceed Sqrt(8 * MaxFS) of level \(level)")
        }
        let dpbFrames = Swift.min(limits.maxDpbMbs / Swift.max(1, frameMbs), 16)
        if Int(maxNumRefFrames) > dpbFrames {
            problems.append("max_num_ref_frames \(maxNumRefFrames) exceeds MaxDpbFrames \(dpbFrames) of level \(level)")
        }
        if vuiParametersPresentFlag && vui.bitstreamRestrictionFlag && Int(vui.maxDecFrameBuffering) > dpbFrames {
            problems.append("max_dec_frame_buffering \(vui.maxDecFrameBuffering) exceeds MaxDpbFrames \(dpbFrames) of level \(level)")
        }
        if vuiParametersPresentFlag && vui.fixedFrameRateFlag, let rate = frameRate, rate.denominator > 0 {
            // Macroblocks per second, rounded up; frame rates above 2^32 are not real.
            let perSecond = (UInt64(frameMbs) &* rate.numerator &+ rate.denominator &- 1) / rate.denominator
            if perSecond > UInt64(limits.maxMacroblocksPerSecond) {
                problems.append("\(perSecond) macroblocks per second exceed MaxMBPS \(limits.maxMacroblocksPerSecond) of level \(level)")
            }
        }
        return problems
    }
}
