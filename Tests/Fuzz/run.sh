#!/bin/sh
# Builds the libFuzzer binary and runs one target for a given time.
#
#   Tests/Fuzz/run.sh TARGET SECONDS [extra libFuzzer arguments]
#
# TARGET is a key of FuzzBodies.targets (Tests/IntegrationTests/Fuzz/FuzzBodies.swift) or, for
# the MP4 targets, of MP4FuzzBodies.targets (Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift):
#   H.264 core:  annexb_parse, streaming, avcc, access_units, roundtrip
#   around it:   flv_read, rtp_depacketize, rtmp_receive (a server's bytes into the client),
#                rtmp_serve (a publisher's bytes into the server), y4m_parse, sdp_parse, ts_demux (TSParser), mp4_read,
#                rtsp_response (a server's bytes into the RTSP client's reader: responses, SDP, headers, `$` frames)
#   packaging:   mp4_fragment (MP4FragmentWriter), hls_segment (HLSSegmentWriter with a live
#                window, in a temporary directory): an options byte, then an Annex-B stream
# The library modules (H264, MediaSupport, H264Video, RTP, FLV, RTMP, MPEGTS, MP4, RTSP) are compiled as they are in the package, one static
# library each with libFuzzer's coverage instrumentation, into .build/fuzz/modules; the shared
# bodies, Tests/TestSupport/FuzzProperty.swift (a broken property traps here, so that libFuzzer
# keeps the input), Tests/TestSupport/FramingEvents.swift (the splitter drivers the streaming
# body shares with the framing tests) and the entry point (Tests/Fuzz/Targets/Entry.swift) make ONE binary for all targets,
# .build/fuzz/bin/h264-fuzz[-SANITIZERS]; FUZZ_TARGET selects the body at run time.
#
# FUZZ_SANITIZE (default: none) adds sanitizers to libFuzzer's coverage instrumentation, e.g.
# FUZZ_SANITIZE=address. Swift already traps on out-of-bounds indexing and overflow in -O builds;
# AddressSanitizer adds checks for the few unsafe-pointer paths (the start-code scanner, unaligned
# word loads) at about five times the cost per execution. The intended campaign: run each target
# without it, then replay the grown corpus once under AddressSanitizer:
#   FUZZ_SANITIZE=address Tests/Fuzz/run.sh TARGET 0 -runs=0   (SECONDS 0: replay only)
# The corpus lives in .build/fuzz/corpus/TARGET (kept between runs, not committed); it is seeded
# at every run with Fixtures/Streams, ../shared/corpus when present (the first FUZZ_MAX_LEN bytes
# of each stream; for mp4_read its MP4 files instead), seeds the binary derives from the fixtures
# in the target's own format (FLV files, RTP packets, RTMP server bytes, Y4M, SDP, TS: FuzzSeeds.swift;
# MP4 files in each layout: MP4FuzzBodies.seeds) and Tests/Fuzz/Regressions/TARGET.
# Crashers are written to .build/fuzz/artifacts/TARGET/; keep each as
# Tests/Fuzz/Regressions/TARGET/<name> once fixed.
# Environment: FUZZ_JOBS (default 1) runs that many workers with -fork; FUZZ_MAX_LEN (default
# 4096, mp4_read 16384) bounds inputs: headers live in the first bytes, and short inputs run many
# times faster; an MP4 input must hold a whole small file (a fixture muxed is 1 to 10 KiB).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2
    exit 2
fi
target=$1; seconds=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
targets="annexb_parse streaming avcc access_units roundtrip flv_read rtp_depacketize rtmp_receive rtmp_serve y4m_parse sdp_parse ts_demux mp4_read mp4_fragment hls_segment rtsp_response"
case " $targets " in
    *" $target "*) ;;
    *) echo "no target $target ($targets)" >&2; exit 2 ;;
esac
case $target in
    flv_read|rtmp_receive|rtmp_serve) dict="$here/flv-rtmp.dict" ;;
    sdp_parse) dict="$here/sdp.dict" ;;
    rtsp_response) dict="$here/rtsp.dict" ;;
    y4m_parse) dict="$here/y4m.dict" ;;
    mp4_read) dict="$here/mp4.dict" ;;
    *) dict="$here/h264.dict" ;;
esac
out="$root/.build/fuzz"
if [ "$target" = mp4_read ]; then max_len=${FUZZ_MAX_LEN:-16384}; else max_len=${FUZZ_MAX_LEN:-4096}; fi
mkdir -p "$out/bin" "$out/corpus/$target" "$out/seeds/$target" "$out/artifacts/$target"
sanitize=${FUZZ_SANITIZE:-}
suffix=${sanitize:+-$(printf '%s' "$sanitize" | tr ',' '-')}
bin="$out/bin/h264-fuzz$suffix"
modules="$out/modules$suffix"
# -wmo: each module optimised whole, as `swift build -c release` does. Without it every file is
# optimised alone, generic code called from another file stays unspecialised (witness-table calls,
# generic metadata looked up at run time), and an execution costs 1.2 to 1.6 times as much.
flags="-parse-as-library -swift-version 6 -package-name swift_h264 -O -wmo -g -sanitize=fuzzer${sanitize:+,$sanitize}"

# One static library per module, in dependency order, then the binary. A module is rebuilt
# when one of its sources (or a module before it) is newer than its library.
build_module() {  # NAME
    mkdir -p "$modules"
    find "$root/Sources/$1" -name '*.swift' > "$modules/$1.sources"
    # shellcheck disable=SC2086
    swiftc $flags -module-name "$1" -I "$modules" -emit-module -emit-module-path "$modules/$1.swiftmodule" \
        -emit-library -static -o "$modules/lib$1.a.tmp" @"$modules/$1.sources"
    mv "$modules/lib$1.a.tmp" "$modules/lib$1.a"
}
rebuilt=no
for m in H264 MediaSupport H264Video RTP FLV RTMP MPEGTS MP4 RTSP; do
    if [ "$rebuilt" = yes ] || [ ! -f "$modules/lib$m.a" ] || \
       [ -n "$(find "$root/Sources/$m" -name '*.swift' -newer "$modules/lib$m.a" | head -n 1)" ]; then
        echo "building module $m..." >&2
        build_module "$m"
        rebuilt=yes
    fi
done
if [ "$rebuilt" = yes ] || [ ! -x "$bin" ] || \
   [ -n "$(find "$here/Targets" "$root/Tests/IntegrationTests/Fuzz" "$root/Tests/MP4Tests/Fuzz" "$root/Tests/TestSupport/FuzzProperty.swift" \
        "$root/Tests/TestSupport/FramingEvents.swift" \
        -name '*.swift' -newer "$bin" | head -n 1)" ]; then
    echo "building $bin..." >&2
    { find "$here/Targets" "$root/Tests/IntegrationTests/Fuzz" -name 'Fuzz*.swift' -o -name 'Entry.swift'
      echo "$root/Tests/MP4Tests/Fuzz/MP4FuzzBodies.swift"
      echo "$root/Tests/TestSupport/FuzzProperty.swift"
      echo "$root/Tests/TestSupport/FramingEvents.swift"; } | grep -v Regression > "$out/sources"
    # In $out: a whole-module build with -g leaves the binary's module files (H264Fuzz-1.swiftmodule,
    # ...) in the current directory.
    # shellcheck disable=SC2086
    (cd "$out" && swiftc $flags -module-name H264Fuzz -I "$modules" -L "$modules" -lMP4 -lMPEGTS -lRTMP -lFLV -lRTSP -lRTP -lH264Video -lMediaSupport -lH264 \
        @"$out/sources" -o "$bin.tmp")
    mv "$bin.tmp" "$bin"
fi

# Seeds: copied or derived at run time (never committed).
seeds="$out/seeds/$target"
rm -rf "$seeds"; mkdir -p "$seeds"
if [ "$target" != mp4_read ]; then
    for f in "$root"/Fixtures/Streams/*; do
        [ -f "$f" ] && head -c "$max_len" "$f" > "$seeds/fixture-$(basename "$f")"
    done
fi
if [ "$target" = avcc ]; then
    # The avcc body's layout: length-size choice (2 = four bytes), the record's length (2 bytes,
    # big-endian), the record, then the AVCC payload.
    for f in "$root"/Fixtures/Streams/*.avcc; do
        [ -f "$f-config" ] || continue
        n=$(wc -c < "$f-config")
        { printf "\\$(printf '%03o' 2)\\$(printf '%03o' $((n / 256)))\\$(printf '%03o' $((n % 256)))"
          cat "$f-config" "$f"; } | head -c "$max_len" > "$seeds/avcc-$(basename "$f")"
    done
fi
if [ "$target" = mp4_read ] && [ -d "$root/../shared/corpus" ]; then
    # The corpus's MP4 files (their first FUZZ_MAX_LEN bytes).
    find "$root/../shared/corpus" -type f \( -iname '*.mp4' -o -iname '*.m4s' -o -path '*/mp4ff/*.bin' \) 2>/dev/null |
    while read -r f; do
        head -c "$max_len" "$f" > "$seeds/corpus-$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
    done
elif [ -d "$root/../shared/corpus" ]; then
    # The first FUZZ_MAX_LEN bytes of each stream: its parameter sets and first slices.
    find "$root/../shared/corpus" -type f \( -iname '*.264' -o -iname '*.h264' -o -iname '*.avc' \
        -o -iname '*.jsv' -o -iname '*.26l' -o -iname '*.jvt' -o -iname '*.avcc' -o -iname '*.bin' -o -iname '*.flv' \) \
        2>/dev/null | head -n 500 |
    while read -r f; do
        head -c "$max_len" "$f" > "$seeds/corpus-$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
    done
fi
# Seeds in the target's own format, derived from the fixture streams by the library's writers.
FUZZ_TARGET="$target" FUZZ_MAKE_SEEDS="$seeds" FUZZ_MAX_LEN="$max_len" \
    "$bin" "$root"/Fixtures/Streams/*.264 > /dev/null
if [ -d "$here/Regressions/$target" ]; then
    for f in "$here/Regressions/$target"/*; do [ -f "$f" ] && cp "$f" "$seeds/regression-$(basename "$f")"; done
fi

jobs=${FUZZ_JOBS:-1}
if [ "$seconds" -gt 0 ]; then set -- -max_total_time="$seconds" "$@"; fi
set -- -rss_limit_mb=2048 -timeout=10 -max_len="$max_len" \
    -dict="$dict" -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 "$@"
if [ "$jobs" -gt 1 ]; then set -- -fork="$jobs" "$@"; fi
export FUZZ_TARGET="$target"
# libFuzzer, not the Swift runtime's backtracer, must handle a trap: it saves the input.
export SWIFT_BACKTRACE=enable=no
exec "$bin" "$@" "$out/corpus/$target" "$seeds"
