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
# TARGET mp4_read is a key of MP4FuzzBodies.targets (Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift):
# its binary, .build/fuzz/bin/mp4-fuzz[-SANITIZERS], links the H264 and MP4 modules (each built
# with the same instrumentation) with the same entry point; its seeds are the fixtures
# converted to MP4 by the h264 tool (when built) and the corpus's MP4 files.
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
    annexb_parse|streaming|avcc|access_units|roundtrip) kind=h264 ;;
    mp4_read) kind=mp4 ;;
    *) echo "no target $target (annexb_parse, streaming, avcc, access_units, roundtrip, mp4_read)" >&2; exit 2 ;;
esac
out="$root/.build/fuzz"
# MP4 inputs hold a whole small file (a fixture muxed is 1 to 10 KiB); H.264 headers live in the
# first bytes of a stream.
if [ "$kind" = mp4 ]; then max_len=${FUZZ_MAX_LEN:-16384}; else max_len=${FUZZ_MAX_LEN:-4096}; fi
mkdir -p "$out/bin" "$out/corpus/$target" "$out/seeds/$target" "$out/artifacts/$target"
sanitize=${FUZZ_SANITIZE:-}
bin="$out/bin/h264-fuzz${sanitize:+-$(printf '%s' "$sanitize" | tr ',' '-')}"

if [ "$kind" = mp4 ]; then
    bin="$out/bin/mp4-fuzz${sanitize:+-$(printf '%s' "$sanitize" | tr ',' '-')}"
    # Rebuild when any input is newer than the binary: H264 and MP4 as static library modules
    # (instrumented like the executable), then the entry point and the MP4 bodies.
    if [ ! -x "$bin" ] || [ -n "$(find "$root/Sources/H264" "$root/Sources/MP4" "$here/Targets" "$here/MP4" \
            "$root/Tests/MP4Tests/Fuzz" -name '*.swift' -newer "$bin" | head -n 1)" ]; then
        echo "building $bin..." >&2
        mods="$out/modules${sanitize:+-$(printf '%s' "$sanitize" | tr ',' '-')}"
        mkdir -p "$mods"
        for module in H264 MP4; do
            find "$root/Sources/$module" -name '*.swift' > "$out/sources-$module"
            swiftc -parse-as-library -swift-version 6 -module-name "$module" -O -g -I "$mods" \
                -sanitize=fuzzer${sanitize:+,$sanitize} -emit-module -emit-module-path "$mods/$module.swiftmodule" \
                -emit-library -static -o "$mods/lib$module.a" @"$out/sources-$module"
        done
        swiftc -parse-as-library -swift-version 6 -module-name MP4Fuzz -O -g -I "$mods" \
            -sanitize=fuzzer${sanitize:+,$sanitize} "$here/Targets/Entry.swift" "$here/MP4/FuzzBodies.swift" \
            "$root/Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift" "$mods/libMP4.a" "$mods/libH264.a" -o "$bin.tmp"
        mv "$bin.tmp" "$bin"
    fi
elif [ ! -x "$bin" ] || [ -n "$(find "$root/Sources/H264" "$here/Targets" \
        "$root/Tests/H264Tests/Fuzz" -name '*.swift' -newer "$bin" | head -n 1)" ]; then
    # Rebuild when any input is newer than the binary.
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
if [ "$kind" = mp4 ]; then
    # MP4 files: the corpus's, and the fixtures muxed by the h264 tool when it is built.
    if [ -d "$root/../shared/corpus" ]; then
        find "$root/../shared/corpus" -type f \( -iname '*.mp4' -o -iname '*.m4s' -o -iname '*.bin' \) 2>/dev/null |
        while read -r f; do
            head -c "$max_len" "$f" > "$seeds/corpus-$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
        done
    fi
    h264="$root/.build/debug/h264"
    if [ -x "$h264" ]; then
        for f in "$root"/Fixtures/Streams/*.264; do
            "$h264" convert "$f" "$seeds/fixture-$(basename "$f").mp4" >/dev/null 2>&1 || true
            "$h264" convert "$f" "$seeds/fixture-$(basename "$f").frag.mp4" --fragmented >/dev/null 2>&1 || true
        done
        for f in "$seeds"/fixture-*; do
            [ -f "$f" ] && head -c "$max_len" "$f" > "$f.cut" && mv "$f.cut" "$f"
        done
    fi
else
for f in "$root"/Fixtures/Streams/*; do
    [ -f "$f" ] && head -c "${FUZZ_MAX_LEN:-4096}" "$f" > "$seeds/fixture-$(basename "$f")"
done
fi
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
if [ "$kind" = h264 ] && [ -d "$root/../shared/corpus" ]; then
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
set -- -rss_limit_mb=2048 -timeout=10 -max_len="$max_len" \
    -dict="$here/$kind.dict" -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$@"
if [ "$jobs" -gt 1 ]; then set -- -fork="$jobs" "$@"; fi
export FUZZ_TARGET="$target"
# libFuzzer, not the Swift runtime's backtracer, must handle a trap: it saves the input.
export SWIFT_BACKTRACE=enable=no
exec "$bin" "$@" "$out/corpus/$target" "$seeds"
