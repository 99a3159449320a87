#!/bin/sh
# Writes the two streams that Docs/Benchmarks.md measures with the benchmark executable (H264Benchmarks):
#
#   sh Docs/bench-streams.sh CORPUS_DIR OUT_DIR
#
#   high-bitrate.264  160 MiB of a 1080p x264 stream at QP 6 (hb.264 of Docs/Benchmarks.md: NAL
#                     units of about 2 MB)
#   small-nal.264     >= 150 MB of small NAL units (mean ~1.3 KB): the Annex-B conformance and
#                     real streams of CORPUS_DIR (the public corpus described in its README:
#                     openh264/, hibernia/, fate-frext/, cros-codecs/), a WebRTC-like x264
#                     stream (640x360, 1.5 Mb/s, slices of at most 1,200 bytes) and a low-bitrate
#                     ladder rung (640x360, 600 kb/s, B-frames), concatenated in that order and
#                     repeated until the file holds 150 MB
#
# Needs ffmpeg with libx264. The streams are byte-for-byte the same on every run with the same
# corpus and the same ffmpeg/x264 versions (single-threaded encodes).
set -eu
[ $# -eq 2 ] || { echo "usage: sh Docs/bench-streams.sh CORPUS_DIR OUT_DIR" >&2; exit 2; }
corpus=$1
out=$2
mkdir -p "$out"

ffmpeg -hide_banner -loglevel fatal -f lavfi -i testsrc2=size=1920x1080:rate=30,noise=alls=12:allf=t \
    -t 20 -c:v libx264 -threads 1 -preset ultrafast -qp 6 -f h264 - | head -c 160M > "$out/high-bitrate.264"

ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 -t 120 \
    -c:v libx264 -threads 1 -preset veryfast -tune zerolatency -b:v 1500k -g 60 \
    -x264-params slice-max-size=1200 -f h264 "$out/rtc.264"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=640x360:rate=30 -t 120 \
    -c:v libx264 -threads 1 -preset medium -b:v 600k -g 120 -bf 3 -f h264 "$out/ladder.264"

list=$(cd "$corpus" && LC_ALL=C ls openh264/* hibernia/* fate-frext/* cros-codecs/* |
    grep -iE '\.(264|h264|jsv|avc|26l|jvt)$')
: > "$out/small-nal.264"
while [ "$(wc -c < "$out/small-nal.264")" -lt 150000000 ]; do
    for f in $list; do cat "$corpus/$f"; done >> "$out/small-nal.264"
    cat "$out/rtc.264" "$out/ladder.264" >> "$out/small-nal.264"
done
rm "$out/rtc.264" "$out/ladder.264"
ls -l "$out/high-bitrate.264" "$out/small-nal.264"
