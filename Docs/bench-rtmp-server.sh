#!/bin/bash
# The RTMP ingest scale benchmark (Docs/Benchmarks.md, "RTMP ingest at scale"): N publishers at
# about 2 Mb/s each, from one load-generator process (`H264Benchmarks rtmp-load`), into
# nginx-rtmp (`hls on;`) and into `h264 serve --hls`, on loopback, one server at a time; for
# each N of a step search, the server's CPU time and RSS over the paced window and whether the
# load held real time. The search stops for a server at the first N that does not.
#
#   bash Docs/bench-rtmp-server.sh OUT_DIR [nginx] [h264]
#
# Environment: STREAMS (the steps, default "10 25 50 100 200"), DURATION (seconds per run,
# default 30), PORT (default 19350). Needs ffmpeg with libx264, nginx with the RTMP module
# (libnginx-mod-rtmp) for the nginx side, python3 for the summary. Builds the two executables
# in release. Everything it writes goes under OUT_DIR: the input (load.264, made at run time:
# 10 s of 1280x720 at 30 fps, x264 at 2 Mb/s, a keyframe every 2 s, no B-frames), and per run
# the server's configuration, log, HLS output and the generator's JSON report.
set -eu
[ $# -ge 1 ] || { echo "usage: bash Docs/bench-rtmp-server.sh OUT_DIR [nginx] [h264]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
servers=${*:-nginx h264}
steps=${STREAMS:-10 25 50 100 200}
duration=${DURATION:-30}
port=${PORT:-19350}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -s "$out/load.264" ]; then
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -t 10 \
        -c:v libx264 -threads 1 -preset veryfast -b:v 2M -maxrate 2M -bufsize 2M -g 60 -bf 0 \
        -f h264 "$out/load.264"
fi
(cd "$root" && swift build -c release --product H264Benchmarks >/dev/null && swift build -c release --product h264 >/dev/null)
bin=$(cd "$root" && swift build -c release --show-bin-path)

module=
for m in /usr/lib/nginx/modules/ngx_rtmp_module.so /usr/share/nginx/modules/ngx_rtmp_module.so; do
    [ -f "$m" ] && module=$m && break
done

# Waits until something accepts on the port (10 s at most).
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on $port" >&2
    return 1
}

# Starts a server for one run in $1; sets server_pid (what to stop) and pids (what to measure).
start_nginx() {
    local dir=$1
    mkdir -p "$dir/hls"
    cat > "$dir/nginx.conf" <<EOF
load_module $module;
daemon off;
worker_processes 2;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 2048; }
rtmp {
    server {
        listen 127.0.0.1:$port;
        chunk_size 4096;
        application live {
            live on;
            hls on;
            hls_path $dir/hls;
            hls_fragment 2s;
            hls_playlist_length 10s;
        }
    }
}
EOF
    nginx -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" &
    server_pid=$!
    wait_port
    pids=$(echo "$server_pid" $(pgrep -P "$server_pid") | tr ' ' ',')
}

start_h264() {
    local dir=$1
    mkdir -p "$dir/hls"
    "$bin/h264" serve --rtmp "127.0.0.1:$port" --hls "$dir/hls" --max-connections 2000 2> "$dir/error.log" &
    server_pid=$!
    wait_port
    pids=$server_pid
}

summary=$out/summary.txt
: > "$summary"
for server in $servers; do
    if [ "$server" = nginx ] && [ -z "$module" ]; then echo "nginx: no RTMP module, skipped" | tee -a "$summary"; continue; fi
    for n in $steps; do
        dir=$out/$server-$n
        rm -rf "$dir"
        mkdir -p "$dir"
        "start_$server" "$dir"
        set +e
        "$bin/H264Benchmarks" rtmp-load --url "rtmp://127.0.0.1:$port/live" --input "$out/load.264" \
            --streams "$n" --duration "$duration" --server-pid "$pids" --json > "$dir/load.json" 2> "$dir/load.err"
        rc=$?
        set -e
        sleep 1
        kill -TERM "$server_pid"
        wait "$server_pid" || true
        playlists=$(find "$dir/hls" -name '*.m3u8' | wc -l)
        python3 - "$server" "$n" "$playlists" "$dir/load.json" <<'EOF' | tee -a "$summary"
import json, sys
server, n, playlists, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{server:6} N={n:4}  no report ({e})"); sys.exit()
print(f"{server:6} N={n:4}  real time {'held' if r['held_real_time'] else 'NOT held':8}  "
      f"server CPU {r.get('server_cpu_percent', 0):6.1f}% ({r.get('server_cpu_percent_per_stream', 0):.3f}%/stream)  "
      f"RSS +{r.get('server_rss_per_stream_bytes', 0) / 1e3:7.0f} kB/stream ({r.get('server_rss_end_bytes', 0) / 1e6:.0f} MB)  "
      f"generator CPU {r['generator_cpu_percent']:5.1f}%  dropped {sum(r['frames_dropped'])}  "
      f"late {r['late_fraction'] * 100:.2f}%  backlog max {r['backlog_max_connection_bytes'] / 1e3:.0f} kB  playlists {playlists}")
EOF
        [ "$rc" -eq 0 ] || break
    done
done
echo "summary: $summary"
