#!/usr/bin/env bash
# Builds and runs every example in release, each writing into OUTDIR/NAME and checking its own
# output; fails on the first failed build or check.
#
#   Docs/Examples/run-all.sh OUTDIR
#
# The examples share one scratch path (SCRATCH, default .build/examples), so the library is
# compiled in release once, not once per example. SwiftPM keeps one build plan per scratch
# path, made for the root package it was planned for, so the plan is removed before each
# example; the compiled modules stay and are reused.
set -euo pipefail
OUT=${1:?usage: run-all.sh OUTDIR}
cd "$(dirname "$0")/../.."
SCRATCH=${SCRATCH:-$PWD/.build/examples}
mkdir -p "$OUT"

run() {
    local name=$1; shift
    echo "== $name"
    rm -f "$SCRATCH/release.yaml" "$SCRATCH/release/description.json"
    swift run -c release --scratch-path "$SCRATCH" --package-path "Docs/Examples/$name" "$name" "$OUT/$name" "$@"
}

run CaptureToAnnexB
run CustomCapturer
run BGRAToFLV
if command -v ffmpeg > /dev/null; then
    echo "== BGRAToFLV (frames piped in from FFmpeg)"
    ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=320x240:rate=30 -t 3 -pix_fmt bgra -f rawvideo - \
        | "$SCRATCH/release/BGRAToFLV" "$OUT/BGRAToFLV-stdin" 320x240
fi
run ReadSamples > "$OUT/ReadSamples.log"
run IngestToHLS
grep -v '^frame ' "$OUT/ReadSamples.log"
echo "all examples passed"
