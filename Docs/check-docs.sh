#!/usr/bin/env bash
# Builds every library's DocC catalog from the build's symbol graphs with the toolchain's
# `docc`, failing on any warning, checks that every public type of each module is listed
# in its catalog's topics, and that every snippet an article shows is the code of its test in
# Tests/DocSnippetTests (Docs/check-snippets.py).
#
#   Docs/check-docs.sh [OUTDIR]        # default .build/docs; OUTDIR/NAME.doccarchive
#
# Symbol graphs come from `swift package dump-symbol-graph` (it reuses the debug build). The
# same graphs from a build of your own:
#
#   swift build -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc GRAPHS
#   docc convert Sources/H264/H264.docc --additional-symbol-graph-dir GRAPHS/H264 \
#       --fallback-display-name H264 --fallback-bundle-identifier H264 --output-path H264.doccarchive
#
# (docc wants one module's graphs per directory: H264.symbols.json and H264@*.symbols.json.)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-.build/docs}
DOCC=$(command -v docc || echo "$(dirname "$(command -v swift)")/docc")
mkdir -p "$OUT"

# dump-symbol-graph also tries the generated test-runner modules and reports failing on them;
# what counts is that the libraries' graphs were written.
swift package dump-symbol-graph --minimum-access-level public > "$OUT/dump.log" 2>&1 || true
GRAPHS=$(sed -n 's/^Files written to //p' "$OUT/dump.log")
[ -f "$GRAPHS/H264.symbols.json" ] || { cat "$OUT/dump.log"; exit 1; }

status=0
# The articles' snippets are the code of Tests/DocSnippetTests, as it is.
python3 Docs/check-snippets.py || status=1
for pair in H264:Sources/H264/H264.docc H264Video:Sources/H264Video/H264Video.docc \
            X264:Sources/X264/X264.docc H264Fixtures:Fixtures/H264Fixtures.docc \
            RTP:Sources/RTP/RTP.docc FLV:Sources/FLV/FLV.docc RTMP:Sources/RTMP/RTMP.docc \
            MP4:Sources/MP4/MP4.docc MPEGTS:Sources/MPEGTS/MPEGTS.docc SRT:Sources/SRT/SRT.docc \
            RTSP:Sources/RTSP/RTSP.docc H264Delivery:Sources/H264Delivery/H264Delivery.docc; do
    module=${pair%%:*} catalog=${pair#*:}
    rm -rf "$OUT/graphs/$module" && mkdir -p "$OUT/graphs/$module"
    cp "$GRAPHS/$module.symbols.json" "$OUT/graphs/$module/"
    cp "$GRAPHS/$module"@*.symbols.json "$OUT/graphs/$module/" 2>/dev/null || true

    # Every public top-level type (and typealias) must appear as ``Name`` in the catalog.
    missing=$(python3 - "$OUT/graphs/$module/$module.symbols.json" "$catalog" <<'PY'
import json, pathlib, re, sys
graph = json.load(open(sys.argv[1]))
kinds = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}
types = sorted({s["pathComponents"][0] for s in graph["symbols"]
                if s["kind"]["identifier"] in kinds and len(s["pathComponents"]) == 1})
text = "".join(p.read_text() for p in pathlib.Path(sys.argv[2]).glob("*.md"))
listed = set(re.findall(r"``([A-Za-z0-9_]+)", text))
print(" ".join(t for t in types if t not in listed))
PY
)
    if [ -n "$missing" ]; then echo "$module: public types not in $catalog's topics: $missing"; status=1; fi

    if ! "$DOCC" convert "$catalog" --additional-symbol-graph-dir "$OUT/graphs/$module" \
            --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
            --output-path "$OUT/$module.doccarchive" --warnings-as-errors > "$OUT/$module.log" 2>&1; then
        echo "$module: docc reports problems:"; grep -E "warning|error" "$OUT/$module.log" | head -40; status=1
    else
        echo "$module: ok"
    fi
done
# The public surface, counted from the same graphs and printed in every CI run.
python3 Docs/public-surface.py "$OUT/graphs" | tee "$OUT/public-surface.txt"
exit $status
