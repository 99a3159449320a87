internal import CX264
import H264
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

extension X264Encoder.Options {
    /// Writes the VideoToolbox-style coding-structure settings into x264's parameters (after
    /// the preset, tune, B-frame and keyframe settings; before the profile is applied).
    func applyStructure(to p: inout x264_param_t) {
        if !allowTemporalCompression {
            p.i_keyint_max = 1
            p.i_keyint_min = 1
        }
        if allowOpenGOP { p.b_open_gop = 1 }
        if let mode = entropyMode { p.b_cabac = mode == .cabac ? 1 : 0 }
        if let r = referenceFrameCount {
            // x264's max_num_ref_frames is the largest of the references, 1 + the reordering
            // depth and 4 with B-pyramid: fewer than 4 means B-frames that are not references,
            // fewer than 2 means no B-frames (a B-frame needs a reference on each side).
            p.i_frame_reference = Int32(r)
            p.i_dpb_size = Int32(r)
            if r < 4 { p.i_bframe_pyramid = X264_B_PYRAMID_NONE }
            if r < 2 { p.i_bframe = 0 }
        }
        if let lo = minFrameQP { p.rc.i_qp_min = Int32(lo) }
        if let hi = maxFrameQP { p.rc.i_qp_max = Int32(hi) }
        if let l = lookaheadFrameCount {
            p.rc.i_lookahead = Int32(l)
            if l == 0 { p.rc.b_mb_tree = 0 }  // x264 would turn it off with a warning
        }
        if let n = maxFrameDelayCount { boundDelay(&p, to: n) }
        if let m = masteringDisplayColourVolume {
            p.mastering_display.b_mastering_display = 1
            p.mastering_display.i_green_x = Int32(m.displayPrimariesX[0])
            p.mastering_display.i_green_y = Int32(m.displayPrimariesY[0])
            p.mastering_display.i_blue_x = Int32(m.displayPrimariesX[1])
            p.mastering_display.i_blue_y = Int32(m.displayPrimariesY[1])
            p.mastering_display.i_red_x = Int32(m.displayPrimariesX[2])
            p.mastering_display.i_red_y = Int32(m.displayPrimariesY[2])
            p.mastering_display.i_white_x = Int32(m.whitePointX)
            p.mastering_display.i_white_y = Int32(m.whitePointY)
            p.mastering_display.i_display_max = Int64(m.maxDisplayMasteringLuminance)
            p.mastering_display.i_display_min = Int64(m.minDisplayMasteringLuminance)
        }
        if let c = contentLightLevelInfo {
            p.content_light_level.b_cll = 1
            p.content_light_level.i_max_cll = Int32(c.maxContentLightLevel)
            p.content_light_level.i_max_fall = Int32(c.maxPicAverageLightLevel)
        }
        if moreFramesBeforeStart || moreFramesAfterEnd { p.b_stitchable = 1 }
    }

    /// Bounds what x264 holds to `n` frames. x264 holds the larger of its B-frame decision
    /// window and the lookahead, plus one frame per frame thread after the first, plus the
    /// threaded lookahead's buffer (its `frames.i_delay`). Frame threads get at most
    /// 1 + n/4 (one thread, or sliced threads when more are allowed, below that), the
    /// threaded lookahead buffer none, and B-frames and the lookahead what remains.
    private func boundDelay(_ p: inout x264_param_t, to n: Int) {
        let processors = Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let wanted = threads == 0 ? Swift.max(1, processors * 3 / 2) : threads  // x264's automatic count
        let frameThreads = Swift.min(wanted, 1 + n / 4)
        if frameThreads <= 1 {
            p.i_threads = Int32(threads)
            p.b_sliced_threads = wanted > 1 ? 1 : 0
        } else {
            p.i_threads = Int32(frameThreads)
            p.b_sliced_threads = 0
        }
        p.i_sync_lookahead = 0
        let budget = Int32(n - (Swift.max(1, frameThreads) - 1))
        p.i_bframe = Swift.min(p.i_bframe, budget)
        if p.i_bframe_adaptive == X264_B_ADAPT_TRELLIS && Swift.max(p.i_bframe, 3) * 4 > budget {
            p.i_bframe_adaptive = X264_B_ADAPT_FAST
        }
        p.rc.i_lookahead = Swift.min(p.rc.i_lookahead, budget)
        if p.rc.i_lookahead == 0 { p.rc.b_mb_tree = 0 }
    }
}
