#!/usr/bin/env bash
# Regenerates every stream in Fixtures/Streams and Fixtures/manifest.json.
#
# Tools: ffmpeg (lavfi test sources -> y4m), the x264 CLI (every encoded stream; options below),
# swift (builds this package's `h264` tool for the StreamBuilder streams),
# python3 (Fixtures/fixturetool.py: the derived and deliberately broken streams, the AVCC
# conversions, the PAFF rewrite, the manifest and the table in README.md; the facts come from
# ffprobe and FFmpeg's trace_headers).
# Tested with x264 0.164.3095 (built with --chroma-format=all, 8- and 10-bit) and FFmpeg 5.1.
# x264 runs single-threaded so the output is deterministic for a given x264 build; a different
# x264 version changes the bytes (and its user-data SEI text), so re-run this script and commit
# the streams and the manifest together.
#
# Usage: Fixtures/make-fixtures.sh        (from anywhere)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/Streams"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DESC="$WORK/descriptions.tsv"
: > "$DESC"

for tool in ffmpeg ffprobe x264 python3 swift; do
    command -v "$tool" > /dev/null || { echo "make-fixtures: $tool is required" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT"

# describe NAME TEXT: the manifest's description of Streams/NAME.
describe() { printf '%s\t%s\n' "$1" "$2" >> "$DESC"; }

# encode NAME "LAVFI SOURCE" FRAMES PIX_FMT [x264 options...]
# Renders FRAMES frames of an FFmpeg lavfi test source as y4m and encodes them with x264 into
# Streams/NAME (or into NAME itself when it is an absolute path).
encode() {
    local name=$1 source=$2 frames=$3 pixfmt=$4
    shift 4
    [[ $name == /* ]] || name="$OUT/$name"
    ffmpeg -nostdin -v error -f lavfi -i "$source" -frames:v "$frames" -pix_fmt "$pixfmt" -strict -1 \
        -f yuv4mpegpipe - |
        x264 --quiet --no-progress --threads 1 --demuxer y4m "$@" -o "$name" - 2> /dev/null
}

T=testsrc2=rate=25:size
M=mandelbrot=rate=25:size
S=smptebars=rate=25:size

# --- Profiles and entropy coders --------------------------------------------------------------
encode baseline-cavlc.264 "$T=64x48" 8 yuv420p --profile baseline --keyint 4 --crf 30
describe baseline-cavlc.264 "Constrained Baseline, CAVLC, I and P only, IDR every 4 frames, POC type 2"

encode main-cabac-bframes.264 "$T=96x64" 10 yuv420p --profile main --bframes 2 --b-pyramid none \
    --b-adapt 0 --keyint 10 --crf 30
describe main-cabac-bframes.264 "Main, CABAC, 2 non-reference B-frames between P-frames (no pyramid), weighted P prediction"

encode high-bpyramid.264 "$M=96x64" 12 yuv420p --profile high --bframes 3 --b-pyramid normal \
    --b-adapt 0 --keyint 12 --crf 30
describe high-bpyramid.264 "High, CABAC, 8x8 transform, 3 B-frames with a B-pyramid (reference B-frames, nal_ref_idc > 0)"

encode high-cavlc.264 "$T=64x48" 8 yuv420p --profile high --no-cabac --8x8dct --bframes 1 \
    --b-adapt 0 --crf 30
describe high-cavlc.264 "High, CAVLC with the 8x8 transform, 1 B-frame"

encode monochrome.264 "$T=48x32" 4 gray --output-csp i400 --crf 30
describe monochrome.264 "High, 4:0:0 monochrome (chroma_format_idc 0)"

# --- Slices and interlace -------------------------------------------------------------------
encode slices-4.264 "$T=96x64" 6 yuv420p --profile main --slices 4 --bframes 0 --crf 30
describe slices-4.264 "Main, CABAC, 4 slices per picture (first_mb_in_slice 0, 6, 12, 18)"

encode mbaff-tff.264 "$T=64x64" 6 yuv420p --profile high --tff --bframes 1 --b-adapt 0 --crf 30
describe mbaff-tff.264 "High, CABAC, interlaced: MBAFF frames (frame_mbs_only_flag 0, mb_adaptive_frame_field_flag 1), top field first"

encode mbaff-bff-cavlc.264 "$S=64x64" 4 yuv420p --profile main --no-cabac --bff --bframes 0 --crf 30
describe mbaff-bff-cavlc.264 "Main, CAVLC, interlaced: MBAFF frames, bottom field first"

# --- Chroma formats and bit depth -----------------------------------------------------------
encode high422.264 "$T=64x48" 4 yuv422p --output-csp i422 --crf 30
describe high422.264 "High 4:2:2 (profile_idc 122), 8-bit 4:2:2"

encode high444.264 "$T=64x48" 4 yuv444p --output-csp i444 --crf 30
describe high444.264 "High 4:4:4 Predictive (profile_idc 244), 8-bit 4:4:4"

encode high444-lossless.264 "$T=32x32" 2 yuv444p --output-csp i444 --qp 0 --bframes 0
describe high444-lossless.264 "High 4:4:4 Predictive, lossless (qpprime_y_zero_transform_bypass_flag 1, QP 0)"

encode high10.264 "$T=64x48" 4 yuv420p10le --output-depth 10 --crf 30
describe high10.264 "High 10 (profile_idc 110), 10-bit 4:2:0"

encode high422-10.264 "$T=64x48" 3 yuv422p10le --output-csp i422 --output-depth 10 --crf 30
describe high422-10.264 "High 4:2:2 (profile_idc 122), 10-bit 4:2:2"

# --- Cropping, VUI, AUD, SEI -----------------------------------------------------------------
encode crop-98x50.264 "$T=98x50" 4 yuv420p --profile main --crf 30
describe crop-98x50.264 "Cropping: 112x64 coded, frame_crop_right_offset 7 and frame_crop_bottom_offset 7 (in 2-sample units) give 98x50"

encode crop-444-61x45.264 "$T=64x48" 3 yuv444p --output-csp i444 --crop-rect 3,1,0,2 --crf 30
describe crop-444-61x45.264 "Cropping in 1-sample units (4:4:4): 64x48 coded, frame_crop_left_offset 3, top 1, bottom 2 give an odd 61x45"

encode crop-mbaff-64x40.264 "$T=64x40" 3 yuv420p --profile main --tff --bframes 0 --crf 30
describe crop-mbaff-64x40.264 "Cropping of an interlaced (MBAFF) stream: 64x64 coded in macroblock pairs, frame_crop_bottom_offset 6 in 4-row units gives 64x40"

encode vui-full.264 "$T=64x48" 4 yuv420p --sar 12:11 --overscan show --videoformat pal \
    --range pc --colorprim bt709 --transfer bt709 --colormatrix bt709 --chromaloc 1 \
    --fps 30000/1001 --crf 30
describe vui-full.264 "VUI: SAR 12:11 (aspect_ratio_idc 2), overscan, video format PAL, full range, BT.709 colour description, chroma location 1, timing 30000/1001 fps"

encode aud.264 "$T=64x48" 5 yuv420p --profile main --aud --bframes 1 --b-adapt 0 --crf 30
describe aud.264 "Access unit delimiters (NAL type 9) before every access unit"

encode sei-hrd.264 "$T=64x48" 6 yuv420p --profile main --nal-hrd vbr --vbv-bufsize 600 \
    --vbv-maxrate 500 --pic-struct --bframes 1 --b-adapt 0 --crf 30
describe sei-hrd.264 "NAL HRD in the VUI; buffering_period SEI on IDRs and pic_timing SEI (with pic_struct) on every picture"

encode open-gop.264 "$T=64x48" 12 yuv420p --profile main --open-gop --keyint 5 --min-keyint 5 \
    --bframes 2 --b-adapt 0 --crf 30
describe open-gop.264 "Open GOP: one IDR, later keyframes are non-IDR I pictures with a recovery_point SEI, B-frames before them reference across the GOP"

encode intra-refresh.264 "$T=64x48" 12 yuv420p --profile main --intra-refresh --keyint 4 \
    --bframes 0 --crf 30
describe intra-refresh.264 "Periodic intra refresh: one IDR, then P pictures with a recovery_point SEI at each refresh start"

# --- A resolution change ----------------------------------------------------------------------
encode "$WORK/res-a.264" "$T=64x48" 3 yuv420p --profile baseline --crf 30
encode "$WORK/res-b.264" "$T=96x64" 3 yuv420p --profile baseline --crf 30
cat "$WORK/res-a.264" "$WORK/res-b.264" > "$OUT/resolution-change.264"
describe resolution-change.264 "Two encodes concatenated: 3 frames 64x48, then a new SPS (same id 0) and IDR at 96x64 for 3 frames"

# --- PAFF source (rewritten below) -------------------------------------------------------------
# x264 codes interlace as MBAFF only. Field pictures are made by fixturetool.py from this
# all-intra encode of the separated fields (top, bottom, top, ...) at half height.
encode "$WORK/fields.264" "testsrc2=rate=25:size=64x64,setfield=tff,separatefields" 8 yuv420p \
    --profile main --no-cabac --keyint 1 --crf 30

# --- AVCC sources (converted below) ----------------------------------------------------------
encode "$WORK/tiny.264" "$T=32x32" 6 yuv420p --profile main --bframes 1 \
    --b-adapt 0 --qp 40
cp "$OUT/main-cabac-bframes.264" "$WORK/avcc-source.264"

# --- Streams no encoder here makes: this package's StreamBuilder (h264 build-stream) ----------------
# Every SPS/PPS/slice header/SEI is written by the library's own syntax writers; CAVLC P/B/SP
# slices hold one mb_skip_run over all their macroblocks, I/SI slices I_PCM macroblocks of flat
# grey, so the streams decode (to flat pictures). Byte-identical on every machine.
swift build --package-path "$HERE/.." --product h264 > /dev/null
H264="$(swift build --package-path "$HERE/.." --show-bin-path)/h264"
"$H264" build-stream 'I! P@6 B@2^0 B@4^0 P@12 B@8^0 B@10^0 I~@18 P@24' --poc-type 1 \
    --size 64x48 --fps 25/1 --reorder 2 -o "$OUT/poc-type1.264"
describe poc-type1.264 "StreamBuilder: POC type 1 (offset_for_ref_frame[0] 2, offset_for_non_ref_pic -1, delta_pic_order_cnt[0] per picture), Main, CAVLC, IDR then P and two non-reference B pictures reordered by POC, a non-IDR I with a recovery_point SEI; minimal slice data (P/B all skipped, I slices I_PCM grey), decodes without errors"
"$H264" build-stream 'I!/t P/b P@8/t P@9/b B@4/t^0 B@5/b^0 P@16/t P@17/b B@12/t^0 B@13/b^0' --interlaced \
    --size 64x64 --fps 25/1 --reorder 1 -o "$OUT/paff-pb.264"
describe paff-pb.264 "StreamBuilder: field pictures (PAFF) with inter prediction: Main, CAVLC, POC type 0, top IDR I field + bottom P field, then P field pairs and non-reference B field pairs reordered by POC; minimal slice data (P/B all skipped, I slices I_PCM grey), decodes without errors"
"$H264" build-stream 'SI! SP SP* SI SP P' --profile 88 --size 48x32 -o "$OUT/sp-si.264"
describe sp-si.264 "StreamBuilder: Extended profile (88) SP and SI slices (sp_for_switch_flag, slice_qs_delta): an SI IDR, SP and P pictures, a non-IDR SI; minimal slice data (SP/P all skipped, SI slices I_PCM grey; no encoder here writes SP/SI)"

# --- Derived and broken streams, AVCC, and the manifest ----------------------------------------
python3 "$HERE/fixturetool.py" build "$OUT" "$WORK" "$DESC" "$HERE/manifest.json"

du -cb "$OUT"/* | tail -1
