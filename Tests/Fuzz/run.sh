#!/bin/sh
# Builds one libFuzzer target and runs it for a given time.
#
#   Tests/Fuzz/run.sh TARGET SECONDS [extra libFuzzer arguments]
#
# TARGET is one of annexb_parse, streaming, avcc, access_units, roundtrip: a key of
# FuzzBodies.targets (Tests/H264Tests/Fuzz/FuzzBodies.swift). Every file of Sources/H264, the
# shared bodies and the entry point (Tests/Fuzz/Targets/Entry.swift) are compiled into ONE module
# and one binary for all targets, into .build/fuzz/bin/h264-fuzz[-SANITIZERS];
# FUZZ_TARGET selects the body at run time.
#
# FUZZ_SANITIZE (default: none) adds sanitizers to libFuzzer's coverage instrumentation, e.g.
# FUZZ_SANITIZE=address. Swift already traps on out-of-bounds indexing and overflow in -O builds;
# AddressSanitizer adds checks for the few unsafe-pointer paths (the start-code scanner, unaligned
# word loads) at about five times the cost per execution. The intended campaign: run each target
# without it, then replay the grown corpus once under AddressSanitizer:
#   FUZZ_SANITIZE=address Tests/Fuzz/run.sh TARGET 0 -runs=0   (SECONDS 0: replay only) The corpus lives in .build/fuzz/corpus/TARGET (kept between runs, not
# committed); it is seeded at every run with Fixtures/Streams, ../shared/corpus when present
# (the first FUZZ_MAX_LEN bytes of each stream) and Tests/Fuzz/Regressions/TARGET. Crashers are written to
# .build/fuzz/artifacts/TARGET/; keep each as Tests/Fuzz/Regressions/TARGET/<name> once fixed.
# Environment: FUZZ_JOBS (default 1) runs that many workers with -fork; FUZZ_MAX_LEN (default
# 4096) bounds inputs: headers live in the first bytes, and short inputs run many times faster.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2
    exit 2
fi
target=$1; seconds=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $target in
    annexb_parse|streaming|avcc|access_units|roundtrip) ;;
    *) echo "no target $target (annexb_parse, streaming, avcc, access_units, roundtrip)" >&2; exit 2 ;;
esac
out="$root/.build/fuzz"
mkdir -p "$out/bin" "$out/corpus/$target" "$out/seeds/$target" "$out/artifacts/$target"
sanitize=${FUZZ_SANITIZE:-}
bin="$out/bin/h264-fuzz${sanitize:+-$(printf '%s' "$sanitize" | tr ',' '-')}"

# Rebuild when any input is newer than the binary.
if [ ! -x "$bin" ] || [ -n "$(find "$root/Sources/H264" "$here/Targets" \
        "$root/Tests/H264Tests/Fuzz" -name '*.swift' -newer "$bin" | head -n 1)" ]; then
    echo "building $bin..." >&2
    find "$root/Sources/H264" "$here/Targets" -name '*.swift' > "$out/sources"
    echo "$root/Tests/H264Tests/Fuzz/FuzzBodies.swift" >> "$out/sources"
    swiftc -parse-as-library -swift-version 6 -module-name H264Fuzz -O -g \
        -sanitize=fuzzer${sanitize:+,$sanitize} @"$out/sources" -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
fi

# Seeds: copied at run time (never committed).
seeds="$out/seeds/$target"
rm -rf "$seeds"; mkdir -p "$seeds"
for f in "$root"/Fixtures/Streams/*; do
    [ -f "$f" ] && head -c "${FUZZ_MAX_LEN:-4096}" "$f" > "$seeds/fixture-$(basename "$f")"
done
if [ "$target" = avcc ]; then
    # The avcc body's layout: length-size choice (2 = four bytes), the record's length (2 bytes,
    # big-endian), the record, then the AVCC payload.
    for f in "$root"/Fixtures/Streams/*.avcc; do
        [ -f "$f-config" ] || continue
        n=$(wc -c < "$f-config")
        { printf "\\$(printf '%03o' 2)\\$(printf '%03o' $((n / 256)))\\$(printf '%03o' $((n % 256)))"
          cat "$f-config" "$f"; } | head -c "${FUZZ_MAX_LEN:-4096}" > "$seeds/avcc-$(basename "$f")"
    done
fi
if [ -d "$root/../shared/corpus" ]; then
    # The first FUZZ_MAX_LEN bytes of each stream: its parameter sets and first slices.
    find "$root/../shared/corpus" -type f \( -iname '*.264' -o -iname '*.h264' -o -iname '*.avc' \
        -o -iname '*.jsv' -o -iname '*.26l' -o -iname '*.jvt' -o -iname '*.avcc' -o -iname '*.bin' \) \
        2>/dev/null | head -n 500 |
    while read -r f; do
        head -c "${FUZZ_MAX_LEN:-4096}" "$f" > "$seeds/corpus-$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
    done
fi
if [ -d "$here/Regressions/$target" ]; then
    for f in "$here/Regressions/$target"/*; do [ -f "$f" ] && cp "$f" "$seeds/regression-$(basename "$f")"; done
fi

jobs=${FUZZ_JOBS:-1}
if [ "$seconds" -gt 0 ]; then set -- -max_total_time="$seconds" "$@"; fi
set -- -rss_limit_mb=2048 -timeout=10 -max_len="${FUZZ_MAX_LEN:-4096}" \
    -dict="$here/h264.dict" -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$@"
if [ "$jobs" -gt 1 ]; then set -- -fork="$jobs" "$@"; fi
export FUZZ_TARGET="$target"
# libFuzzer, not the Swift runtime's backtracer, must handle a trap: it saves the input.
export SWIFT_BACKTRACE=enable=no
exec "$bin" "$@" "$out/corpus/$target" "$seeds"
