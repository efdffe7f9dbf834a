#!/usr/bin/env bash
# Socket.IO client benchmark: the Swift SocketIO client next to python-socketio's AsyncClient,
# against the same python-socketio 5.18.1 server (Tests/Servers/bench_sio_server.py), clients
# alternating for several rounds. Per transport (WebSocket, polling): emitWithAck round trip
# p50/p99, client CPU per ack, client CPU per fire-and-forget emit. Release build; prints a table.
#   scripts/bench-socketio.sh [rounds] [acks] [emits]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
ACKS=${2:-1000}
EMITS=${3:-2000}
./scripts/bootstrap.sh >/dev/null
swift build -c release --product SocketIOBenchmark 2>&1 | grep -E "error|Build" | tail -3
BENCH=.build/release/SocketIOBenchmark

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

source scripts/bench-sio-server.sh
trap stop_bench_sio_server EXIT
start_bench_sio_server
[ -n "$PORT" ] || { echo "server did not start:"; cat "$SERVER_LOG"; exit 1; }

"$BENCH" compare "$PORT" --rounds "$ROUNDS" --acks "$ACKS" --warmup 100 --emits "$EMITS" \
  --python .venv/bin/python --python-client Tests/Servers/bench_sio_python_client.py
if grep -q "Traceback" "$SERVER_LOG"; then echo; echo "server errors:"; grep -B2 -A12 Traceback "$SERVER_LOG" | head -40; fi
