#!/usr/bin/env bash
# Soak of a reconnecting RTMP publisher (a benchmark, not a test): a real-time encode published
# with `h264 encode - --rtmp URL --rtmp-reconnect` to an nginx-rtmp on a loopback port, nginx
# killed (SIGKILL) and started again every RESTART seconds, the publisher's RSS sampled every
# 10 s. The documented run is an hour with a restart every 5 minutes:
#
#   Docs/soak-rtmp-reconnect.sh                 # DURATION=3600 RESTART=300
#   DURATION=120 RESTART=30 Docs/soak-rtmp-reconnect.sh     # the short run of Benchmarks.md
#
# Environment: DURATION (s), RESTART (s), DOWN (s the server stays down, default 2), SIZE
# (default 640x360), RATE (fps, default 25), BITRATE (kbit/s, default 800), H264 (the CLI,
# default .build/release/h264, built if absent), NGINX_MODULE (ngx_rtmp_module.so), OUT (a
# directory kept afterwards; default a temporary one, removed).
#
# Frames come from FFmpeg's test source at real time (`-re`) as Y4M on a pipe. Prints one line
# per sample (seconds, RSS in KiB, connection events so far), then a summary: RSS at the first
# and last sample and its maximum, restarts made, losses and reconnections the publisher noted,
# whether it gave up, and the size of nginx's recording of the last publish with what ffprobe
# finds in it (first packet a keyframe, decode errors). Exits 1 when a restart was not
# recovered or the publisher failed.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-3600}
RESTART=${RESTART:-300}
DOWN=${DOWN:-2}
SIZE=${SIZE:-640x360}
RATE=${RATE:-25}
BITRATE=${BITRATE:-800}
H264=${H264:-.build/release/h264}
MODULE=${NGINX_MODULE:-$(ls /usr/lib/nginx/modules/ngx_rtmp_module.so /usr/share/nginx/modules/ngx_rtmp_module.so 2>/dev/null | head -1)}
[ -n "$MODULE" ] || { echo "needs nginx with the RTMP module (libnginx-mod-rtmp)" >&2; exit 2; }
[ -x "$H264" ] || swift build -c release --product h264 >/dev/null
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; DIR=$OUT; else DIR=$(mktemp -d); trap 'rm -rf "$DIR"' EXIT; fi

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$DIR/nginx.conf" <<EOF
load_module $MODULE;
master_process off;
error_log $DIR/error.log info;
pid $DIR/nginx.pid;
events { worker_connections 64; }
rtmp {
    server {
        listen 127.0.0.1:$PORT;
        chunk_size 4096;
        application live { live on; record all; record_path $DIR; }
    }
}
EOF
start_nginx() {
    nginx -p "$DIR/" -c "$DIR/nginx.conf" -e "$DIR/error.log" -g 'daemon off;' &
    NGINX=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return; sleep 0.05; done
    echo "nginx did not start" >&2; exit 1
}
start_nginx

FRAMES=$((DURATION * RATE))
ffmpeg -hide_banner -loglevel error -nostdin -re -f lavfi -i "testsrc2=size=$SIZE:rate=$RATE" -frames:v "$FRAMES" \
    -pix_fmt yuv420p -f yuv4mpegpipe - 2>"$DIR/ffmpeg.log" \
  | "$H264" encode - --rtmp "rtmp://127.0.0.1:$PORT/live/soak" --rtmp-reconnect --keyint "$RATE" \
      --bitrate "$BITRATE" --preset veryfast --tune zerolatency 2>"$DIR/encode.log" &
PIPELINE=$!
sleep 1
PUBLISHER=$(pgrep -n -f -- "--rtmp rtmp://127.0.0.1:$PORT/live/soak" || true)
[ -n "$PUBLISHER" ] || { echo "the publisher did not start: $(cat "$DIR/encode.log")" >&2; exit 1; }

events() { grep -c "$1" "$DIR/encode.log" || true; }
echo "# t(s) rss(KiB) lost reconnected (publisher pid $PUBLISHER, nginx on $PORT, restart every $RESTART s for $DURATION s)"
first_rss="" last_rss=0 max_rss=0 restarts=0
start=$(date +%s)
next_restart=$((start + RESTART))
while kill -0 "$PUBLISHER" 2>/dev/null; do
    now=$(date +%s)
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$PUBLISHER/status" 2>/dev/null || echo "")
    [ -n "$rss" ] || break
    first_rss=${first_rss:-$rss}; last_rss=$rss; [ "$rss" -gt "$max_rss" ] && max_rss=$rss
    echo "$((now - start)) $rss $(events 'connection lost') $(events 'published again')"
    if [ "$now" -ge "$next_restart" ] && [ $((now - start)) -lt $((DURATION - RESTART / 2)) ]; then
        kill -9 "$NGINX"; wait "$NGINX" 2>/dev/null || true
        sleep "$DOWN"
        start_nginx
        restarts=$((restarts + 1))
        next_restart=$((next_restart + RESTART))
    fi
    sleep 10
done
wait "$PIPELINE" || true
sleep 1
kill "$NGINX" 2>/dev/null; wait "$NGINX" 2>/dev/null || true

lost=$(events 'connection lost') reconnected=$(events 'published again') gaveup=$(events 'gave up')
recording="$DIR/soak.flv"
first_key=$(ffprobe -v error -select_streams v -show_entries packet=flags -of csv=p=0 "$recording" 2>/dev/null | sed -n 1p || true)
decode_errors=$(ffmpeg -hide_banner -nostdin -v error -i "$recording" -f null - 2>&1 | wc -l)
echo "rss KiB: first $first_rss, last $last_rss, max $max_rss"
echo "restarts $restarts, lost $lost, reconnected $reconnected, gave up $gaveup"
echo "last recording: $(stat -c %s "$recording" 2>/dev/null || echo 0) bytes, first packet flags '$first_key', decode error lines $decode_errors"
tail -n 3 "$DIR/encode.log"
[ "$reconnected" -ge "$restarts" ] && [ "$gaveup" -eq 0 ] && [ "$decode_errors" -eq 0 ]
