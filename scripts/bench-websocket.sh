#!/usr/bin/env bash
# WebSocket client benchmark: the native client (release build) and Python's `websockets`
# client against the same `websockets` echo server, side by side; then 1,000 idle
# connections' memory and threads.
#
#   scripts/bench-websocket.sh [--rounds R] [--round-trips N] [--messages N] [--connections N]
#
# Echo round trips alternate between the two clients for R rounds (default 3) and report
# medians of round trips per second and of client CPU per round trip.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || ./scripts/bootstrap.sh
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

swift build -c release --product WebSocketBenchmark
bench=$(swift build -c release --show-bin-path)/WebSocketBenchmark

work=$(mktemp -d)
.venv/bin/python -u Tests/Servers/ws_echo_server.py --no-compression > "$work/server.out" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do grep -q '^PORT=' "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^PORT=//p' "$work/server.out" | head -1)

round_trips=20000; messages=2000
args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --round-trips) round_trips=$2; shift ;;
    --messages) messages=$2; shift ;;
  esac
  shift
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$bench" "$port" --python-client "$PWD/.venv/bin/python $PWD/Tests/Servers/ws_bench_client.py" \
  --round-trips "$round_trips" --messages "$messages" "${args[@]}"
